package org.verbs4j.it;

import org.verbs4j.lab.QpPair;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.verbs4j.lab.Race;

/**
 * The single-thread regression beside the close races: closing from one thread in the wrong order is always
 * refused, naming what is open, and in the right order always clean, with every call after it refused, {@link Race#REPS}
 * times per device, for every kind {@link CoreVerbsLifecycleIT.World} makes (context, PD, channel, CQ, SRQ, QP,
 * MR, AH). The checks are {@link CoreVerbsLifecycleIT}'s own, repeated.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CloseOrderIT {

    @ParameterizedTest
    @MethodSource("org.verbs4j.lab.QpPair#devices")
    void closingFromOneThreadIsAlwaysRefusedOrClean(String device) {
        CoreVerbsLifecycleIT checks = new CoreVerbsLifecycleIT();
        long t0 = System.nanoTime();
        for (int rep = 0; rep < Race.REPS; rep++) {
            try {
                checks.closingInTheWrongOrderIsRefusedNamingWhatIsOpen(device);
                checks.everyObjectRefusesUseAfterCloseAndClosesTwiceHarmlessly(device);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(device + ": repetition " + rep + " of " + Race.REPS + ": " + e, e);
            }
        }
        System.out.printf("CLOSE ORDER %s: %d reps of wrong-order refusal and right-order close, %d ms%n", device,
                Race.REPS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }
}
