#!/usr/bin/env python3
"""plot_sweep.py: the standard figures of a profsim sweep, from its runs.csv.

    python3 docs/notebooks/plot_sweep.py OUT_DIR [--x AXIS] [--prefix PREFIX]

OUT_DIR is a directory `profsim sweep` wrote (docs/SWEEPS.md, "Tables"). The
script reads OUT_DIR/runs.csv with pandas and draws, with matplotlib, into
PREFIX-*.png (default OUT_DIR/fig):

  overlap.png  each profile's overlap with the truth against the x axis (the
               grid's first axis with more than one level, `seed` aside;
               --x chooses another), mean and 95 % confidence interval over
               seeds, one panel per workload when the grid varies workloads;
  top.png      the share of runs in which each profile names the truth's
               hottest method, per workload;
  cost.png     each profile's cost per unit of application CPU (`overhead`),
               when any is not zero (costed runs).

It prints the table behind overlap.png. Copy it and change it: it is a
starting point, a few lines per figure. Needs pandas and matplotlib
(Debian: python3-pandas python3-matplotlib).
"""
import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

# Okabe-Ito: distinguishable with every common colour-vision deficiency,
# as profsim's own figures (study/plot.go).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]

# Columns of runs.csv before the grid's axes and from the profile on
# (docs/SWEEPS.md): the axes are what lies between.
LEADING = ["point", "key", "status", "error"]

# Student's t quantile for a two-sided 95 % interval, by degrees of freedom
# (the sweep's own summary uses the same: study.MeanCI).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000}


def t95(df):
    """t quantile for df degrees of freedom (the nearest tabulated at or below df; 1.96 beyond)."""
    if df < 1:
        return float("nan")
    keys = [k for k in sorted(T95) if k <= df]
    return T95[keys[-1]] if df <= 60 else 1.96


def axes_of(runs):
    cols = list(runs.columns)
    end = cols.index("profile")
    axes = [c for c in cols[len(LEADING):end] if not c.endswith("_ns") or c[:-3] not in cols]
    return [a for a in axes if a != "seed"]


def mean_ci(x):
    x = x.dropna()
    n = len(x)
    m = x.mean()
    if n < 2:
        return pd.Series({"mean": m, "ci95": float("nan"), "n": n})
    return pd.Series({"mean": m, "ci95": t95(n - 1) * x.std(ddof=1) / math.sqrt(n), "n": n})


def main(argv):
    ap = argparse.ArgumentParser(description="the standard figures of a profsim sweep")
    ap.add_argument("dir", help="a directory profsim sweep wrote")
    ap.add_argument("--x", help="the axis on the x axis (default: the first axis with more than one level)")
    ap.add_argument("--prefix", help="output file prefix (default DIR/fig)")
    a = ap.parse_args(argv)
    path = os.path.join(a.dir, "runs.csv")
    if not os.path.exists(path):
        print(f"plot_sweep: {path}: no such file (is {a.dir} a sweep's --out directory?)", file=sys.stderr)
        return 2
    runs = pd.read_csv(path)
    ok = runs[(runs.status == "ok") & (runs.profile != "truth")]
    if ok.empty:
        print(f"plot_sweep: {path}: no successful run with a profile besides the truth", file=sys.stderr)
        return 2
    axes = axes_of(runs)
    varying = [c for c in axes if runs[c].nunique() > 1]
    x = a.x or next((c for c in varying if c != "workload"), None) or (varying[0] if varying else None)
    if a.x and a.x not in axes:
        print(f"plot_sweep: --x {a.x}: not an axis of the grid (axes: {', '.join(axes) or 'none'})", file=sys.stderr)
        return 2
    if x is None:
        print("plot_sweep: the grid has no axis with more than one level besides seed: nothing to plot against", file=sys.stderr)
        return 2
    xcol = x + "_ns" if x + "_ns" in runs.columns else x  # durations: plot their nanoseconds
    prefix = a.prefix or os.path.join(a.dir, "fig")
    panels = sorted(ok.workload.unique()) if "workload" in varying and x != "workload" else [None]
    profiles = list(dict.fromkeys(ok.profile))
    colour = {p: PALETTE[i % len(PALETTE)] for i, p in enumerate(profiles)}

    # overlap.png
    keys = ([] if panels == [None] else ["workload"]) + [xcol, "profile"]
    table = ok.groupby(keys).overlap_vs_truth.apply(mean_ci).unstack()
    print(table.to_string())
    fig, axs = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False, sharey=True)
    for ax, w in zip(axs[0], panels):
        sub = ok if w is None else ok[ok.workload == w]
        for p in profiles:
            s = sub[sub.profile == p].groupby(xcol).overlap_vs_truth.apply(mean_ci).unstack()
            if s.empty:
                continue
            ax.errorbar(s.index, 100 * s["mean"], yerr=100 * s["ci95"].fillna(0), marker="o", capsize=3, label=p, color=colour[p])
        numeric = pd.api.types.is_numeric_dtype(sub[xcol])
        if numeric and xcol.endswith("_ns") and sub[xcol].max() / max(sub[xcol].min(), 1) >= 10:
            ax.set_xscale("log")
        ax.set(xlabel=xcol, title=w or "", ylim=(0, 105))
        ax.grid(alpha=0.3)
    axs[0][0].set_ylabel("overlap with the truth (%)")
    fig.legend(*axs[0][0].get_legend_handles_labels(), loc="lower center", ncol=min(len(profiles), 4), frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(prefix + "-overlap.png", dpi=150)
    plt.close(fig)

    # top.png
    group = "workload" if "workload" in ok.columns else None
    agree = ok.groupby([group, "profile"] if group else ["profile"]).top_method_agrees.mean().unstack()
    ax = (100 * agree).plot.bar(color=[colour[p] for p in agree.columns], figsize=(7, 4.5), rot=0)
    ax.set(ylabel="runs naming the truth's hottest method (%)", ylim=(0, 105))
    ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=min(len(agree.columns), 4))
    ax.figure.tight_layout()
    ax.figure.savefig(prefix + "-top.png", dpi=150)
    plt.close(ax.figure)

    # cost.png
    if "overhead" in ok.columns and ok.overhead.fillna(0).abs().sum() > 0:
        cost = ok.groupby("profile").overhead.apply(mean_ci).unstack().reindex(profiles)
        fig, ax = plt.subplots(figsize=(6, 4.5))
        ax.bar(cost.index, 100 * cost["mean"], yerr=100 * cost["ci95"].fillna(0), color=[colour[p] for p in cost.index], capsize=3)
        ax.set(ylabel="cost per unit of application CPU (%)")
        fig.tight_layout()
        fig.savefig(prefix + "-cost.png", dpi=150)
        plt.close(fig)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
