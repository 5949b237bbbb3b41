package org.verbs4j.bench.perf;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.verbs4j.api.Rdma;
import org.verbs4j.api.cm.CmId;
import org.verbs4j.api.cm.ConnectionManager;

/**
 * The default warm-up: before verbs4j-perf opens its exchange with the peer (server: before it listens; client:
 * before it connects), this process runs the same test once as its own server and client, two threads over a
 * loopback pair on the same device (TCP exchange on 127.0.0.1 and QPs connected by hand, or with {@code -R} the
 * rdma_cm exchange and connection to this host's address on the device), through the same classes and call
 * sites as the measured run ({@link VerbsPerf#runTest}, {@link PerfSession}, {@link PerfRunner}, the same
 * verbs4j queue pair and completion queue classes), with the run's own options (tx depth, CQ moderation, inline,
 * peak or not, iterations or {@code -D}). So HotSpot compiles exactly the loop the measured run enters, with a
 * profile that has seen both roles, and the peer never sees any of it: a C perftest peer gets exactly the
 * exchange it gets without warm-up. Then {@link CompilerQuiet} waits for the JIT to finish.
 *
 * <p>Iteration runs: as verbs4j-perf's {@code --warmup} runs them, up to {@link #MAX_RUNS} runs, each followed by a
 * wait for the compiler, then one more short run (a long loop is compiled on-stack within its first run, the
 * method itself only once it is entered again); at most {@link #ITERS} iterations per side, fewer where the
 * loop is slow: the runs after the second start within {@link #BUDGET_NANOS} of the first run's end ({@link Plan}). {@code -D}: the duration loop for
 * {@link #DURATION_SECONDS} s. With {@code -a}: the first size (the JIT counts iterations, not bytes). Where the
 * device cannot make the pair (iWARP without {@code -R}, no local address on the device, a device that refuses a
 * loopback connection), or it takes longer than {@link #LIMIT_SECONDS}, the run goes on cold and says why. Where
 * the loop or the compiler is slow (under emulation), no run after the first starts after {@link #CUT_SECONDS}.
 * On jsiw_lo, on a busy 2-core host, 2.4-15 s in a fresh JVM (the pure-Java device is cold too), 2-4 s in a warm one.
 */
final class LocalWarmUp {
    /** At most this many unmeasured runs of the loop per side, each followed by a wait for the JIT compiler. */
    static final int MAX_RUNS = 5;
    /** The first run's iterations: it also tells how fast the loop runs here. */
    static final int PROBE_ITERS = 200;
    /** The most iterations of one run. */
    static final int RUN_ITERS = 4_000;
    /** The fewest iterations of one run. */
    static final int MIN_RUN_ITERS = 100;
    /** The loopback's own last (measured, not printed) run: one more entry of the loop method. */
    static final int LAST_RUN_ITERS = 100;
    /** The most iterations in all, per side. */
    static final int ITERS = PROBE_ITERS + (MAX_RUNS - 1) * RUN_ITERS + LAST_RUN_ITERS;
    /**
     * No run after the second starts later than this after the first run ended (the pair's set-up, seconds in a cold
     * JVM under emulation, does not count: the budget paces the loop).
     */
    static final long BUDGET_NANOS = TimeUnit.MILLISECONDS.toNanos(1_500);
    /** {@code -D}: the duration loop runs this long. */
    static final int DURATION_SECONDS = 1;
    /**
     * No run after the first starts later than this after the warm-up began, and the waits for the compiler end
     * by then: under emulation, on a loaded host, two runs and their compiler waits took more than 30 s.
     */
    static final long CUT_SECONDS = 20;
    /** Give up waiting for the loopback run after this long: it hangs (each part of it is bounded otherwise). */
    static final long LIMIT_SECONDS = 120;

    /**
     * The iterations of each warm-up run, the same for both loopback sides (two threads of this process): the
     * side that asks first for run {@code r} decides, from how long its last run took, so that the runs after
     * the second start within {@link #BUDGET_NANOS} of the first run's end; the other side gets the same answer. 0: no
     * more runs.
     */
    static final class Plan {
        private final long start;
        private final long budgetNanos;
        private final long cutNanos;
        private final List<Long> runs = new ArrayList<>();
        private boolean cut;
        /** When the first side asked for run 1 (its first run ended): the budget counts from there. */
        private long budgetStart;
        /** {@code -l}: every run's iterations are a multiple of the post list (and at least one list). */
        private int multiple = 1;

        Plan(long start, long budgetNanos) {
            this(start, budgetNanos, TimeUnit.SECONDS.toNanos(CUT_SECONDS));
        }

        Plan(long start, long budgetNanos, long cutNanos) {
            this.start = start;
            this.budgetNanos = budgetNanos;
            this.cutNanos = cutNanos;
        }

        /** The iterations of run {@code r} (0 when there is none); {@code lastIters} took {@code lastNanos}. */
        synchronized long iterations(int r, long lastIters, long lastNanos) {
            if (r < runs.size()) {
                return runs.get(r);
            }
            long n;
            long now = System.nanoTime();
            if (r == 1) {
                budgetStart = now;
            }
            long remaining = budgetNanos - (now - budgetStart);
            if (r == 0) {
                n = PROBE_ITERS;
            } else if (r >= MAX_RUNS || runs.get(r - 1) == 0 || remaining <= 0 && r >= 2) {
                n = 0;
            } else if (System.nanoTime() - start >= cutNanos) {
                n = 0;
                cut = true;
            } else {
                // spread what is left of the budget over the runs left, at the rate of the last run
                double perRun = lastNanos <= 0 ? RUN_ITERS
                        : (double) lastIters * Math.max(0, remaining) / lastNanos / (MAX_RUNS - r);
                n = (long) Math.max(MIN_RUN_ITERS, Math.min(RUN_ITERS, perRun));
            }
            if (n > 0) {
                n = wholeLists(n, multiple);
            }
            runs.add(n);
            return n;
        }

        /** Makes every run's iterations a multiple of {@code postList} ({@code -l}). {@return this} */
        synchronized Plan inListsOf(int postList) {
            multiple = postList;
            return this;
        }

        /**
         * How long a wait for the compiler after a run may take: until the cut, and at least long enough to see
         * the compiler quiet once.
         */
        long quietLimit() {
            long left = cutNanos - (System.nanoTime() - start);
            return Math.min(CompilerQuiet.MAX_NANOS, Math.max(2 * CompilerQuiet.QUIET_NANOS, left));
        }

        /** Whether the cut ended the runs before their plan did. */
        synchronized boolean wasCut() {
            return cut;
        }

        /** The warm-up runs' iterations so far, and how many runs. */
        synchronized long total() {
            return runs.stream().mapToLong(Long::longValue).sum();
        }

        synchronized int count() {
            return (int) runs.stream().filter(n -> n > 0).count();
        }
    }

    /** What the warm-up did: whether it ran, its one-line account and how long it took in all. */
    record Outcome(boolean warmed, String line, long nanos) {
    }

    /**
     * How often the pair starts when its server finds the loopback port taken (and only then): a port that
     * {@link #freePort} found free can be taken before the server listens (by another program's listener, or,
     * on a RoCE device, by an rdma_cm id, which has no socket for the check to see).
     */
    static final int PORT_ATTEMPTS = 3;

    private LocalWarmUp() {
    }

    /** {@code n} iterations cut to whole post lists of {@code postList} ({@code -l}), at least one list. */
    static long wholeLists(long n, int postList) {
        return Math.max(postList, n / postList * postList);
    }

    /** Runs the warm-up for the run {@code o} (before its exchange exists); never throws. */
    static Outcome run(PerfOptions o) {
        return run(o, () -> freePort(o.port));
    }

    /** {@link #run(PerfOptions)} with the loopback pair's ports from {@code ports}, one per start of the pair. */
    static Outcome run(PerfOptions o, IntSupplier ports) {
        long start = System.nanoTime();
        String what;
        PerfOptions server;
        PerfOptions client;
        Plan plan = new Plan(start, BUDGET_NANOS).inListsOf(o.postList);
        try {
            server = loopbackOptions(o, ports.getAsInt());
            server.warmupPlan = plan;
            client = server.copy();
            if (o.rdmaCm) {
                Local local = localAddress(o.device);
                server.device = local.device();
                client.device = local.device();
                client.serverHost = local.address().getHostAddress();
                what = local.device() + ", rdma_cm to " + client.serverHost;
            } else {
                client.serverHost = InetAddress.getLoopbackAddress().getHostAddress();
                what = (o.device == null ? "the first device" : o.device) + ", TCP exchange on " + client.serverHost;
            }
        } catch (RuntimeException e) {
            return notPossible(e.getMessage(), start);
        }
        long deadline = start + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        Side s;
        Side c;
        for (int attempt = 1; ; attempt++) {
            // the client starts once the server listens: never against another program that holds the port
            CountDownLatch listening = new CountDownLatch(1);
            server.listening = listening::countDown;
            s = new Side(server, "server");
            c = new Side(client, "client");
            s.thread.start();
            boolean listens = awaitListening(listening, s.thread, deadline);
            if (listens) {
                c.thread.start();
            }
            try {
                c.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                s.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (listens || attempt == PORT_ATTEMPTS || s.thread.isAlive() || !s.portTaken) {
                break;
            }
            // the pair starts again on another port
            server.port = ports.getAsInt();
            client.port = server.port;
        }
        if (c.thread.isAlive() || s.thread.isAlive()) {
            return notPossible("the loopback run did not end within " + LIMIT_SECONDS + " s (left running in the"
                    + " background: the measurement may be disturbed)", start);
        }
        if (c.failed() || s.failed()) {
            // the server's failure first: a client that found no listener says less
            Side failed = s.failed() ? s : c;
            return notPossible("the loopback " + failed.role + " (" + what + ") failed: " + failed.failure
                    + (s.failed() && c.failed() ? "; the client: " + c.failure : ""), start);
        }
        long quiet = CompilerQuiet.await();
        long nanos = System.nanoTime() - start;
        String loops = o.isDuration() ? DURATION_SECONDS + " s of the duration loop"
                : (plan.total() + server.iters) + " iterations in " + (plan.count() + 1) + " runs"
                + (plan.wasCut() ? " (cut short at " + CUT_SECONDS + " s)" : "");
        return new Outcome(true, String.format(Locale.ROOT, "warm-up: %s of %s (%d B) on a local loopback pair (%s),"
                + " not counted; %.1f s (%.1f s of it waiting for the JIT compiler)", loops, o.test.command(),
                server.size, what, nanos / 1e9, quiet / 1e9), nanos);
    }

    /** Waits until the server listens (true), or its thread ended or the deadline passed without that (false). */
    private static boolean awaitListening(CountDownLatch listening, Thread server, long deadline) {
        try {
            while (server.isAlive() && System.nanoTime() < deadline) {
                if (listening.await(10, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return listening.getCount() == 0;
    }

    private static Outcome notPossible(String why, long start) {
        long nanos = System.nanoTime() - start;
        return new Outcome(false, "warm-up: not possible (" + why + "); the first iterations are measured with the"
                + " JIT compiling the loop (as with --no-warmup)", nanos);
    }

    /**
     * The loopback server's options: the run's own, on a free port, the first size, no peer warm-up, no
     * printing options; in iteration mode a short last run ({@link #LAST_RUN_ITERS}) after the warm-up runs.
     */
    static PerfOptions loopbackOptions(PerfOptions o) {
        return loopbackOptions(o, freePort(o.port));
    }

    /** {@link #loopbackOptions(PerfOptions)} on {@code port}. */
    static PerfOptions loopbackOptions(PerfOptions o, int port) {
        PerfOptions lo = o.copy();
        lo.localWarmup = false;
        lo.serverHost = null;
        lo.port = port;
        lo.size = o.sizes()[0];
        lo.all = false;
        lo.maxSize = PerfOptions.MAX_SIZE;
        lo.histogram = false;
        lo.unsorted = false;
        if (o.isDuration()) {
            lo.duration = DURATION_SECONDS;
            lo.warmup = 0;
        } else {
            // the runs' iterations come from the Plan; --warmup only sizes the time-stamp arrays and turns the runs on
            lo.iters = (int) wholeLists(LAST_RUN_ITERS, o.postList);
            lo.warmup = RUN_ITERS;
        }
        return lo;
    }

    /**
     * A TCP port nobody listens on now (also free for rdma_cm on iWARP, whose connections are TCP), below Linux's
     * ephemeral ports (32768 and up): there the local port of any outgoing connection of the host (a peer's
     * retried connects, say) can take the port between this check and the loopback server's listen.
     */
    private static int freePort(int avoid) {
        int span = 32768 - 20000;
        int start = java.util.concurrent.ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < 200; i++) {
            int port = 20000 + (start + i * 97) % span;
            if (port == avoid) {
                continue; // the run's own port (-p): a peer that connects early must never reach the warm-up
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new java.net.InetSocketAddress(port));
                return port;
            } catch (IOException taken) {
                // in use: the next
            }
        }
        throw new IllegalStateException("no free TCP port below 32768 for the loopback exchange");
    }

    /** An IP address of this host on an RDMA device, and the device. */
    record Local(InetAddress address, String device) {
    }

    /**
     * An address of this host that rdma_cm binds to {@code device} (or, with {@code device} null, to any
     * device): each interface's addresses, IPv4 first, are tried with {@code rdma_bind_addr}.
     */
    static Local localAddress(String device) {
        List<InetAddress> candidates = new ArrayList<>();
        List<InetAddress> v6 = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp()) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    (a instanceof Inet4Address ? candidates : v6).add(a);
                }
            }
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list this host's addresses: " + e.getMessage(), e);
        }
        candidates.addAll(v6);
        try (ConnectionManager cm = Rdma.connectionManager()) {
            for (InetAddress a : candidates) {
                try (CmId id = cm.createId()) {
                    id.bind(new InetSocketAddress(a, 0));
                    String name = id.context().device().name();
                    if (device == null || device.equals(name)) {
                        return new Local(a, name);
                    }
                } catch (RuntimeException notOnADevice) {
                    // an address of no RDMA device (or of another one): try the next
                }
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("rdma_cm: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalStateException("rdma_cm: " + e, e);
        }
        throw new IllegalStateException("no IP address of this host is on " + (device == null ? "an RDMA device"
                : device) + " (rdma_cm binds none of " + candidates + ")");
    }

    /** One side of the loopback run: {@link VerbsPerf#runTest} on a daemon thread, its output kept for errors. */
    private static final class Side {
        final String role;
        final Thread thread;
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        volatile String failure;
        /** The failure was that the server's port was taken ({@link PerfChannel.PortTakenException}). */
        volatile boolean portTaken;

        /**
         * True when this side failed before its loops were done. A failure at the last handshake ("close") is not
         * one: every run has run by then, and on rdma_cm the side that ends first may disconnect while the other
         * still waits for its last send's completion (seen on jsiw_lo on a busy host).
         */
        boolean failed() {
            String f = failure;
            return f != null && !f.contains(" at the close") && !f.contains(" of the close with ");
        }

        Side(PerfOptions o, String role) {
            this.role = role;
            this.thread = new Thread(() -> {
                try (PrintStream out = new PrintStream(OutputStream.nullOutputStream());
                     PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                    VerbsPerf.runTest(o, out, e);
                } catch (RuntimeException | Error e) {
                    portTaken = e instanceof PerfChannel.PortTakenException;
                    failure = e.getMessage() == null ? e.toString() : e.getMessage();
                }
            }, "verbs4j-perf warm-up " + role);
            thread.setDaemon(true);
        }
    }
}
