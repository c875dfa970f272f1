// Throws holds the shapes classfile.SharedThrow tells apart.
public class Throws {
    static class Failure extends RuntimeException {
        String message;

        Failure setMessage(String m) {
            message = m;
            return this;
        }
    }

    static final Failure CACHED = new Failure();
    final Failure shared = new Failure();

    // Every call throws the shared instance or a new one: shared.
    void report(boolean fresh, String m) {
        throw fresh ? new Failure().setMessage(m) : shared.setMessage(m);
    }

    // Every call throws a static instance: shared.
    static void cached() {
        throw CACHED;
    }

    // Every call throws a new object, which a recording sees made.
    static void fresh() {
        throw new Failure();
    }

    // Throws the shared instance on one path and returns on the other.
    void sometimes(boolean b) {
        if (b) {
            throw shared;
        }
    }

    // Throws what it was given.
    static void rethrow(RuntimeException e) {
        throw e;
    }
}
