package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** {@link ValueTable}, the lookup behind every verbs enum's {@code of(int)}. */
class ValueTableTest {

    private enum Sample {
        UNKNOWN(-1), A(0), B(3), C(7);

        final int value;

        Sample(int value) {
            this.value = value;
        }
    }

    private enum Twice {
        X(1), Y(1);

        final int value;

        Twice(int value) {
            this.value = value;
        }
    }

    @Test
    void findsEveryConstantAndMapsGapsAndOutOfRangeToTheUnknownOne() {
        ValueTable<Sample> t = new ValueTable<>(Sample.values(), s -> s.value, Sample.UNKNOWN);
        assertSame(Sample.A, t.of(0));
        assertSame(Sample.B, t.of(3));
        assertSame(Sample.C, t.of(7));
        for (int gap : new int[] {1, 2, 4, 5, 6, 8, 4096, -1, -2, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertSame(Sample.UNKNOWN, t.of(gap), "value " + gap);
        }
        ValueTable<Sample> orNull = new ValueTable<>(Sample.values(), s -> s.value, null);
        assertNull(orNull.of(2));
        assertNull(orNull.of(-1), "a negative UNKNOWN is not looked up by its value");
    }

    @Test
    void refusesTwoConstantsWithOneValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ValueTable<>(Twice.values(), t -> t.value, null));
        assertEquals("X and Y share the native value 1", e.getMessage());
    }

    @Test
    void refusesAValueTooLargeForADenseTable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ValueTable<>(Sample.values(), s -> s.value * 1000, null));
        assertTrue(e.getMessage().contains("7000 is above 4095"), e.getMessage());
    }

    /** Every enum that falls back to UNKNOWN: each constant round-trips, a value no constant has gives UNKNOWN. */
    @Test
    void enumsWithAnUnknownConstantRoundTripAndFallBackToIt() {
        checkRoundTrip(AtomicCapability.values(), AtomicCapability::value, AtomicCapability::of, AtomicCapability.UNKNOWN);
        checkRoundTrip(GidType.values(), GidType::value, GidType::of, GidType.UNKNOWN);
        checkRoundTrip(LinkLayer.values(), LinkLayer::value, LinkLayer::of, LinkLayer.UNKNOWN);
        checkRoundTrip(NodeType.values(), NodeType::value, NodeType::of, NodeType.UNKNOWN);
        checkRoundTrip(PortState.values(), PortState::value, PortState::of, PortState.UNKNOWN);
        checkRoundTrip(TransportType.values(), TransportType::value, TransportType::of, TransportType.UNKNOWN);
        checkRoundTrip(Mtu.values(), Mtu::value, Mtu::of, null);
    }

    private static <E extends Enum<E>> void checkRoundTrip(E[] all, ToIntFunction<E> value, IntFunction<E> of, E unknown) {
        for (E e : all) {
            if (e != unknown) {
                assertSame(e, of.apply(value.applyAsInt(e)), e + " round-trips");
            }
        }
        for (int v : List.of(-1, 99, 4096, Integer.MAX_VALUE)) {
            assertSame(unknown, of.apply(v), all[0].getDeclaringClass().getSimpleName() + ".of(" + v + ")");
        }
    }
}
