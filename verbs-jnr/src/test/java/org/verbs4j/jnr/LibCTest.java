package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.RawMemory;

/**
 * The wait the rdma_cm and async event threads sleep in (no device needed): poll(2) on two descriptors
 * with no time-out, woken by an eventfd. It must really sleep (no wake-ups while nothing happens) and
 * wake at once, telling which descriptor woke it.
 */
class LibCTest {

    @Test
    void tellsWhichDescriptorIsReadable() {
        int a = LibC.eventFd();
        int b = LibC.eventFd();
        long pfds = RawMemory.allocate(LibC.AWAIT_EITHER_BYTES);
        try {
            LibC.signal(b);
            assertEquals(2, LibC.awaitEither(pfds, a, b), "only the wake-up descriptor is readable");
            LibC.signal(a);
            assertEquals(1, LibC.awaitEither(pfds, a, b), "the watched descriptor comes first");
        } finally {
            RawMemory.free(pfds);
            LibC.close(a);
            LibC.close(b);
        }
    }

    @Test
    void setsNonBlockingOnADescriptor() throws Exception {
        Path file = Files.createTempFile("v4j-libc", ".tmp");
        try (java.io.FileInputStream in = new java.io.FileInputStream(file.toFile())) {
            int fd = -1;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path p : (Iterable<Path>) fds::iterator) {
                    try {
                        if (Files.readSymbolicLink(p).equals(file.toRealPath())) {
                            fd = Integer.parseInt(p.getFileName().toString());
                        }
                    } catch (IOException e) {
                        // the listing's own descriptor is gone by now
                    }
                }
            }
            assertTrue(fd >= 0, "the open file's descriptor");
            assertTrue(!LibC.isNonBlocking(fd), "a FileInputStream's descriptor blocks");
            LibC.setNonBlocking(fd, "test file");
            assertTrue(LibC.isNonBlocking(fd), "O_NONBLOCK is set");
            LibC.setNonBlocking(fd, "test file"); // again: a no-op
            assertTrue(LibC.isNonBlocking(fd), "O_NONBLOCK is still set");
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void sleepsWithoutWakingUpUntilSignalled() throws Exception {
        int watched = LibC.eventFd();
        int wake = LibC.eventFd();
        String name = "v4j-libc-test";
        CompletableFuture<Integer> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            long pfds = RawMemory.allocate(LibC.AWAIT_EITHER_BYTES);
            try {
                result.complete(LibC.awaitEither(pfds, watched, wake));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            } finally {
                RawMemory.free(pfds);
            }
        }, name);
        t.setDaemon(true);
        try {
            t.start();
            Path status = waitForTask(name);
            Thread.sleep(300);
            long before = switches(status);
            Thread.sleep(1500);
            long after = switches(status);
            assertTrue(!result.isDone(), "nothing was signalled, yet the wait returned " + result.getNow(null));
            // a wait with a 100 ms time-out would have switched out about 15 times
            assertTrue(after - before <= 1, "the waiting thread woke up " + (after - before) + " times in 1.5 s");
            LibC.signal(wake);
            assertEquals(2, result.get(5, TimeUnit.SECONDS), "woken by the wake-up descriptor");
        } finally {
            t.join(5000);
            LibC.close(watched);
            LibC.close(wake);
        }
    }

    /** {@code /proc/self/task/TID/status} of the thread whose kernel name is {@code name}. */
    static Path waitForTask(String name) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < end) {
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        if (Files.readString(task.resolve("comm")).strip().equals(name)) {
                            return task.resolve("status");
                        }
                    } catch (IOException gone) {
                        // a thread that ended while we listed
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no thread named " + name + " in /proc/self/task");
    }

    /** Voluntary plus involuntary context switches of a thread, from its status file. */
    static long switches(Path status) throws IOException {
        long n = 0;
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                n += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        return n;
    }
}
