package org.verbs4j.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One run of a tool's {@code run(args, out, err)} in this JVM: its exit status, stdout and stderr. */
record ToolRun(int exit, String out, String err) {

    /** A tool's entry point. */
    @FunctionalInterface
    interface Entry {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    static ToolRun of(Entry tool, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = tool.run(args, o, e);
        }
        return new ToolRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
