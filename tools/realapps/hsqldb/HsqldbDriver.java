import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Random;

/**
 * DaCapo-like hsqldb work on HSQLDB 1.8 (Debian's libhsqldb1.8.0-java, the
 * version DaCapo 2006 ran): an in-memory bank database of ACCOUNTS
 * accounts and their branches, and transactions over and over, until the
 * JVM is ended or for the seconds given: deposits and transfers (prepared
 * updates and inserts into a history table), balance queries, and every
 * 50th a join and aggregate over the branches.
 */
public class HsqldbDriver {
    static final int ACCOUNTS = 5000;
    static final int BRANCHES = 50;

    public static void main(String[] args) throws Exception {
        Class.forName("org.hsqldb.jdbcDriver");
        long until = args.length > 0 ? System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L : Long.MAX_VALUE;
        Random r = new Random(42);
        try (Connection c = DriverManager.getConnection("jdbc:hsqldb:mem:bank", "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE branch (id INT PRIMARY KEY, name VARCHAR(40), balance BIGINT)");
                s.execute("CREATE TABLE account (id INT PRIMARY KEY, branch INT, owner VARCHAR(40), balance BIGINT)");
                s.execute("CREATE TABLE history (id INT IDENTITY, account INT, delta BIGINT, note VARCHAR(60))");
                s.execute("CREATE INDEX account_branch ON account (branch)");
            }
            try (PreparedStatement b = c.prepareStatement("INSERT INTO branch VALUES (?, ?, 0)");
                 PreparedStatement a = c.prepareStatement("INSERT INTO account VALUES (?, ?, ?, ?)")) {
                for (int i = 0; i < BRANCHES; i++) {
                    b.setInt(1, i);
                    b.setString(2, "branch " + i);
                    b.executeUpdate();
                }
                for (int i = 0; i < ACCOUNTS; i++) {
                    a.setInt(1, i);
                    a.setInt(2, i % BRANCHES);
                    a.setString(3, "owner " + Integer.toString(i * 7919, 36));
                    a.setLong(4, 1000 + r.nextInt(100000));
                    a.executeUpdate();
                }
            }
            PreparedStatement upd = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?");
            PreparedStatement hist = c.prepareStatement("INSERT INTO history (account, delta, note) VALUES (?, ?, ?)");
            PreparedStatement bal = c.prepareStatement("SELECT balance, owner FROM account WHERE id = ?");
            PreparedStatement report = c.prepareStatement(
                "SELECT b.name, COUNT(*), SUM(a.balance), MAX(a.balance) FROM account a JOIN branch b ON a.branch = b.id "
                + "WHERE a.balance > ? GROUP BY b.name ORDER BY 3 DESC");
            long tx = 0, sum = 0;
            while (System.nanoTime() < until) {
                int from = r.nextInt(ACCOUNTS), to = r.nextInt(ACCOUNTS);
                long amount = 1 + r.nextInt(500);
                upd.setLong(1, -amount); upd.setInt(2, from); upd.executeUpdate();
                upd.setLong(1, amount); upd.setInt(2, to); upd.executeUpdate();
                hist.setInt(1, from); hist.setLong(2, -amount); hist.setString(3, "transfer to " + to); hist.executeUpdate();
                bal.setInt(1, to);
                try (ResultSet rs = bal.executeQuery()) {
                    while (rs.next()) { sum += rs.getLong(1) + rs.getString(2).length(); }
                }
                if (++tx % 50 == 0) {
                    report.setLong(1, r.nextInt(50000));
                    try (ResultSet rs = report.executeQuery()) {
                        while (rs.next()) { sum += rs.getLong(3); }
                    }
                }
                if (tx % 20000 == 0) {
                    try (Statement s = c.createStatement()) { s.execute("DELETE FROM history"); }
                }
            }
            System.out.println("transactions " + tx + " checksum " + sum);
        }
    }
}
