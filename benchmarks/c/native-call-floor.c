/*
 * The floor under BindingCallBenchmark / NativeCallBenchmark: the same call from C. Calls memcmp(p, p, 0) (the
 * C function the JMH benchmarks call, which returns at once) through a function pointer the compiler cannot see
 * through, N times, and prints the nanoseconds per call of the best of R runs. What a Java binding adds per verb
 * is the benchmark's time minus this.
 *
 *   gcc -O2 -o target/native-call-floor c/native-call-floor.c && target/native-call-floor [N] [R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*call3)(const void *, const void *, size_t);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000000L;
    int runs = argc > 2 ? atoi(argv[2]) : 10;
    static char buffer[64];
    call3 volatile target = memcmp; /* read anew each call: an indirect call, as through a provider's table */
    double best = 1e18;
    long sink = 0;
    for (int r = 0; r < runs; r++) {
        double start = now_ns();
        for (long i = 0; i < n; i++) {
            sink += target(buffer, buffer, 0);
        }
        double per = (now_ns() - start) / n;
        if (per < best) {
            best = per;
        }
    }
    printf("memcmp(p, p, 0) through a function pointer: %.2f ns per call (best of %d runs of %ld)%s\n", best, runs, n,
           sink ? " (sink)" : "");
    return 0;
}
