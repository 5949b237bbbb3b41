package org.verbs4j.bench.soak;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.verbs4j.api.spi.AbstractResource;

/**
 * Takes the soak's samples: RSS ({@code /proc/self/status} VmRSS), the Java heap used after a full garbage
 * collection, the open file descriptors ({@code /proc/self/fd}), the kernel's counts of the device's RDMA
 * resources ({@code rdma resource show}: pd, cq, qp, mr, cm_id, ctx) and verbs4j's leak count
 * ({@link AbstractResource#leakCount()}). Each sample goes to the CSV (when there is one) and is kept for
 * {@link Flatness}.
 */
final class ResourceSampler {
    private static final Logger LOG = LoggerFactory.getLogger(ResourceSampler.class);
    private static final String[] RDMA_TOOL = {"rdma", "/usr/sbin/rdma", "/sbin/rdma", "/usr/bin/rdma"};
    private static final String[] NATIVE = {"pd", "cq", "qp", "mr", "cm_id", "ctx"};

    private final String device;
    private final PrintWriter csv;
    private final boolean nativeCounts;
    private final long t0 = System.nanoTime();
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final List<Sample> samples = new ArrayList<>();
    private String rdmaTool;
    private boolean rdmaMissing;

    /**
     * @param device the device whose kernel resources are counted
     * @param csv where each sample is written as a line (null: none)
     * @param nativeCounts whether to run {@code rdma resource show} for each sample
     */
    ResourceSampler(String device, PrintWriter csv, boolean nativeCounts) {
        this.device = device;
        this.csv = csv;
        this.nativeCounts = nativeCounts;
    }

    /** @return every sample taken so far, in order */
    List<Sample> samples() {
        return samples;
    }

    /** The samples of one phase. */
    List<Sample> of(String phase) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.phase().equals(phase)) {
                out.add(s);
            }
        }
        return out;
    }

    /** Takes a sample now, in {@code phase} after {@code done} operations; writes and keeps it. */
    Sample sample(String phase, long done) {
        System.gc();
        long heap = memory.getHeapMemoryUsage().getUsed() / 1024;
        // the process's own counts before rdma(8) runs: its pipes would count as file descriptors of ours
        long rss = rssKb();
        long fds = fdCount();
        long[] n = nativeCounts ? nativeCounts() : null;
        Sample s = new Sample(device, phase, (System.nanoTime() - t0) / 1e9, done, rss, heap, fds,
                n == null ? -1 : n[0], n == null ? -1 : n[1], n == null ? -1 : n[2], n == null ? -1 : n[3],
                n == null ? -1 : n[4], n == null ? -1 : n[5], AbstractResource.leakCount());
        samples.add(s);
        if (csv != null) {
            csv.println(s.csv());
            csv.flush();
        }
        return s;
    }

    /**
     * Lets the leak detector see what became unreachable: a collection, then a pause for the cleaner thread.
     *
     * @return verbs4j's leak count after that
     */
    static long settledLeakCount() {
        for (int i = 0; i < 2; i++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return AbstractResource.leakCount();
    }

    /** VmRSS of this process in kB, or -1. */
    static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("no VmRSS: {}", e.toString());
        }
        return -1;
    }

    /** Open file descriptors of this process, or -1. */
    static long fdCount() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count() - 1; // less the one the listing itself holds open
        } catch (IOException e) {
            return -1;
        }
    }

    /** The device's pd, cq, qp, mr, cm_id and ctx counts from {@code rdma resource show}, or null. */
    private long[] nativeCounts() {
        if (rdmaMissing) {
            return null;
        }
        for (String tool : rdmaTool != null ? new String[] {rdmaTool} : RDMA_TOOL) {
            try {
                Process p = new ProcessBuilder(tool, "resource", "show").redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                String out;
                try {
                    out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } finally {
                    p.getInputStream().close();
                    p.getOutputStream().close();
                }
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(tool + " did not finish in 10 s");
                }
                long[] n = parseResourceShow(out, device);
                if (p.exitValue() != 0 || n == null) {
                    throw new IOException(tool + " resource show: exit " + p.exitValue() + ", no line for " + device
                            + ": " + out.strip());
                }
                rdmaTool = tool;
                return n;
            } catch (IOException e) {
                LOG.debug("{}: {}", tool, e.toString());
                if (rdmaTool != null) {
                    throw new IllegalStateException("counting the kernel's RDMA resources failed: " + e.getMessage(), e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        rdmaMissing = true;
        LOG.warn("no usable 'rdma' tool (iproute2): the kernel's RDMA resource counts are not sampled");
        return null;
    }

    /**
     * Parses {@code rdma resource show} ({@code 0: rxe0: pd 3 cq 4 qp 2 cm_id 0 mr 2 ctx 1 srq 0}).
     *
     * @return pd, cq, qp, mr, cm_id, ctx of {@code device} (0 for a kind not listed), or null without its line
     */
    static long[] parseResourceShow(String output, String device) {
        for (String line : output.split("\n")) {
            String[] w = line.trim().split("\\s+");
            if (w.length < 2 || !w[1].equals(device + ":")) {
                continue;
            }
            long[] n = new long[NATIVE.length];
            for (int i = 2; i + 1 < w.length; i += 2) {
                for (int k = 0; k < NATIVE.length; k++) {
                    if (w[i].equals(NATIVE[k])) {
                        n[k] = Long.parseLong(w[i + 1]);
                    }
                }
            }
            return n;
        }
        return null;
    }
}
