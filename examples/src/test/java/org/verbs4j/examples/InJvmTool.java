package org.verbs4j.examples;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An example tool run in the test's own JVM, on a thread of its own, behind {@link Process}: its
 * {@code run(args, out, err)} with stdout and stderr into files, its return value as the exit status. The C
 * interop tests use it for the Java side: what they check (the wire, the output, the exit status) is the same
 * code in a process of its own, and the lab's emulated CPU spends 10-40 s starting each JVM. The launchers
 * themselves, the module path and the JVM options are tested with real processes elsewhere (every run that
 * passes an environment, e.g. {@code VERBS4J_JAVA_OPTS}, is one).
 *
 * <p>Such a run cannot be killed: {@link #destroy()} interrupts its thread, and a run still going when the test
 * gives up fails that test by its time-out.
 */
final class InJvmTool extends Process {
    /** The tools that can run here, by launcher name. */
    private static final Map<String, ToolRun.Entry> TOOLS = Map.of(
            "rc-pingpong", RcPingPong::run,
            "ud-pingpong", UdPingPong::run,
            "cm-pingpong", CmPingPong::run,
            "rping", Rping::run);

    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread thread;
    private volatile int exit = -1;

    private InJvmTool(String name, ToolRun.Entry tool, String[] args, Path outFile, Path errFile) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(outFile.toFile()), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(errFile.toFile()), true, StandardCharsets.UTF_8);
        thread = new Thread(() -> {
            try {
                exit = tool.run(args, out, err);
            } catch (Throwable t) {
                t.printStackTrace(err);
                exit = 1;
            } finally {
                out.close();
                err.close();
                done.countDown();
            }
        }, "in-jvm " + name + " " + String.join(" ", args));
        thread.setDaemon(true);
    }

    /**
     * Starts {@code cmd} here when its first word is the launcher of a tool that can run in this JVM and it
     * needs no environment of its own; else returns {@code null}.
     */
    static Process startIfPossible(List<String> cmd, Path outFile, Path errFile, Map<String, String> env)
            throws IOException {
        String launcher = Path.of(cmd.get(0)).getFileName().toString();
        ToolRun.Entry tool = TOOLS.get(launcher);
        if (tool == null || !env.isEmpty() || !cmd.get(0).contains("/")) {
            return null; // a C tool (found on the PATH), or a run that needs a JVM of its own
        }
        InJvmTool p = new InJvmTool(launcher, tool, cmd.subList(1, cmd.size()).toArray(new String[0]), outFile,
                errFile);
        p.thread.start();
        return p;
    }

    @Override
    public OutputStream getOutputStream() {
        return OutputStream.nullOutputStream();
    }

    @Override
    public InputStream getInputStream() {
        return InputStream.nullInputStream();
    }

    @Override
    public InputStream getErrorStream() {
        return InputStream.nullInputStream();
    }

    @Override
    public int waitFor() throws InterruptedException {
        done.await();
        return exit;
    }

    @Override
    public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        return done.await(timeout, unit);
    }

    @Override
    public int exitValue() {
        if (done.getCount() > 0) {
            throw new IllegalThreadStateException(thread.getName() + " is still running");
        }
        return exit;
    }

    @Override
    public boolean isAlive() {
        return done.getCount() > 0;
    }

    @Override
    public void destroy() {
        thread.interrupt();
    }

    @Override
    public String toString() {
        return thread.getName() + (isAlive() ? " (running)" : " (exit " + exit + ")");
    }
}
