package main

import (
	"context"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var reportArgs = []string{"--workload", "hotcold", "--duration", "200ms", "--samplers", "safepoint,async,pcct"}

// The page is self-contained and shows the same table as `profsim run`.
func TestReportIsOneSelfContainedPage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	code, out, errOut := runMain(append([]string{"report", "--html", path}, reportArgs...)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "open it in a browser")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(b)
	for _, ext := range []string{"<script src", "<link", "<img", "@import", "url("} {
		assert.NotContains(t, page, ext, "no external assets")
	}
	assert.Equal(t, 1, strings.Count(page, "<script>"), "one inline script: the flame graphs' zoom and search")
	for _, u := range regexp.MustCompile(`https?://[^"' ]+`).FindAllString(page, -1) {
		assert.True(t, strings.HasPrefix(u, "http://www.w3.org/"), "only XML namespaces, got %s", u)
	}
	// The table: what `profsim run` prints with the same flags.
	code, table, errOut := runMain(append([]string{"run"}, reportArgs...)...)
	require.Equal(t, 0, code, errOut)
	pre := regexp.MustCompile(`(?s)<pre id="table">(.*?)</pre>`).FindStringSubmatch(page)
	require.Len(t, pre, 2)
	assert.Equal(t, table, html.UnescapeString(pre[1]))
	for _, want := range []string{"safepoint: ", "async: ", "pcct: no bias matrix", "<h3>truth</h3>", "class=\"flame\"", "class=\"timeline\""} {
		assert.Contains(t, page, want)
	}
	if chromium := browser(); chromium != "" {
		renderInBrowser(t, chromium, path, table)
	} else {
		t.Log("no chromium installed: the page was not rendered in a browser")
	}
}

// browser finds a headless-capable Chromium.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// renderInBrowser loads the page in headless Chromium, with the network
// off: its DOM has the table's text, and a screenshot is not blank.
func renderInBrowser(t *testing.T, chromium, path, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--proxy-server=127.0.0.1:9", "--user-data-dir=" + t.TempDir()}
	dom, err := exec.CommandContext(ctx, chromium, append(common, "--dump-dom", "file://"+path)...).Output()
	require.NoError(t, err)
	pre := regexp.MustCompile(`(?s)<pre id="table">(.*?)</pre>`).FindStringSubmatch(string(dom))
	require.Len(t, pre, 2, "the browser's DOM has the table")
	assert.Equal(t, table, html.UnescapeString(pre[1]))
	shot := filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.CommandContext(ctx, chromium, append(common, "--screenshot="+shot, "--window-size=1400,2400", "file://"+path)...)
	require.NoError(t, cmd.Run())
	fh, err := os.Open(shot)
	require.NoError(t, err)
	defer fh.Close()
	img, err := png.Decode(fh)
	require.NoError(t, err)
	// Not blank: some pixels are far from white.
	dark := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 4 {
		for x := bd.Min.X; x < bd.Max.X; x += 4 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r+g+b < 3*0x8000 {
				dark++
			}
		}
	}
	assert.Greater(t, dark, 1000, "the screenshot shows text and graphs")
	if dir := os.Getenv("PROFSIM_SCREENSHOT_DIR"); dir != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(dir, "report.png"), b, 0o644)
	}

	// The flame graphs' script: a click on HotCold.hot in the first graph
	// (the truth's) zooms it to the full width and hides its siblings'
	// subtrees; a search for it reports its share. The probe appends a
	// script that does both and writes what it saw into the title.
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	probe := `<script>
var svg = document.querySelector("svg.flame"), gs = svg.querySelectorAll("g.f"), hot = null;
gs.forEach(function (g) { if (!hot && g.dataset.n === "HotCold.hot") hot = g; });
hot.dispatchEvent(new MouseEvent("click", {bubbles: true}));
var zoomed = hot.querySelector("rect").getAttribute("width");
var s = document.getElementById("search"); s.value = "HotCold\\.hot"; s.dispatchEvent(new Event("input"));
document.title = "probe width=" + zoomed + " hits=" + svg.parentNode.querySelector(".hits").textContent;
</script></body>`
	probed := filepath.Join(t.TempDir(), "probe.html")
	require.NoError(t, os.WriteFile(probed, []byte(strings.Replace(string(page), "</body>", probe, 1)), 0o644))
	dom, err = exec.CommandContext(ctx, chromium, append(common, "--dump-dom", "file://"+probed)...).Output()
	require.NoError(t, err)
	title := regexp.MustCompile(`<title>(probe[^<]*)</title>`).FindStringSubmatch(string(dom))
	require.Len(t, title, 2, "the probe ran")
	assert.Regexp(t, `^probe width=1000 hits=matched: 9\d\.\d %$`, title[1], "zoomed to the full width; hot() is most of the truth")

	// Projected at 1024×768 and at 1920×1080, nothing sticks out of the
	// page: every element that is not inside a box that scrolls (the
	// table's <pre>, the bias tables' wrapper) ends within the window.
	overflow := `<script>
function scrolls(e) { for (; e && e !== document.body; e = e.parentElement) { var o = getComputedStyle(e).overflowX; if (o === "auto" || o === "scroll") return true; } return false; }
var out = [];
document.querySelectorAll("body *").forEach(function (e) {
  if (e.tagName === "SCRIPT" || scrolls(e.parentElement)) return;
  var r = e.getBoundingClientRect();
  if (r.width > 0 && r.right > window.innerWidth + 1) out.push(e.tagName + "." + e.className);
});
document.title = "overflow " + window.innerWidth + ": " + out.length + " " + out.slice(0, 5).join(" ");
</script></body>`
	over := filepath.Join(t.TempDir(), "overflow.html")
	require.NoError(t, os.WriteFile(over, []byte(strings.Replace(string(page), "</body>", overflow, 1)), 0o644))
	for _, size := range []string{"1024,768", "1920,1080"} {
		dom, err := exec.CommandContext(ctx, chromium, append(common, "--window-size="+size, "--dump-dom", "file://"+over)...).Output()
		require.NoError(t, err)
		title := regexp.MustCompile(`<title>(overflow [^<]*)</title>`).FindStringSubmatch(string(dom))
		require.Len(t, title, 2, "the overflow probe ran at %s", size)
		assert.Regexp(t, `^overflow \d+: 0 $`, title[1], "nothing wider than the window at %s", size)
	}
}

func TestReportRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--html FILE is required"},
		{[]string{"--html", filepath.Join(dir, "no", "r.html")}, "does not exist"},
		{[]string{"--html", filepath.Join(dir, "r.html"), "--window", "0s"}, "want a duration > 0"},
		{[]string{"--html", filepath.Join(dir, "r.html"), "--format", "json"}, "--format is a run flag about printing"},
		{[]string{"--html", filepath.Join(dir, "r.html"), "--from", "1s"}, "not inside the run's"},
	} {
		code, _, errOut := runMain(append(append([]string{"report"}, reportArgs...), c.args...)...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
}

// --window and --from replace report.DefaultWindow's window and start,
// each alone.
func TestReportWindowFlagsOverTheDefault(t *testing.T) {
	from, window, err := reportWindow(map[string]string{"window": "30ms"}, 2*time.Second, []string{"async"})
	require.NoError(t, err)
	assert.Equal(t, 30*time.Millisecond, window)
	assert.Equal(t, 950*time.Millisecond, from, "the default window's start")
	from, window, err = reportWindow(map[string]string{"from": "20ms"}, 2*time.Second, []string{"async"})
	require.NoError(t, err)
	assert.Equal(t, 100*time.Millisecond, window, "ten ticks of async's 10 ms")
	assert.Equal(t, 20*time.Millisecond, from)
}
