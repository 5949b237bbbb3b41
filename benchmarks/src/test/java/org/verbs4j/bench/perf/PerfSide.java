package org.verbs4j.bench.perf;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** One run of verbs4j-perf ({@link VerbsPerf#run}) in this JVM: its exit status, stdout and stderr. */
record PerfSide(int exit, String out, String err) {

    /** Runs verbs4j-perf with {@code args} (the test name first) to its end. */
    static PerfSide run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            rc = VerbsPerf.run(args.toArray(new String[0]), o, e);
        }
        return new PerfSide(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** For a failure message: the role, the exit status and both outputs. */
    String describe(String role) {
        return role + ": exit " + exit + "\n--- stdout:\n" + out + "--- stderr:\n" + err;
    }
}
