package org.verbs4j.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link FabricOptions} refuses a value outside its field's range, naming the option; -1 means "the default". */
class FabricOptionsTest {

    /** One numeric option: its setter, its getter and the largest value its native field holds. */
    record Option(String name, ObjIntConsumer<FabricOptions> set, ToIntFunction<FabricOptions> get, int max) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Option> ranged() {
        return Stream.of(
                new Option("trafficClass", FabricOptions::trafficClass, FabricOptions::trafficClass, 255),
                new Option("serviceLevel", FabricOptions::serviceLevel, FabricOptions::serviceLevel, 15),
                new Option("pkeyIndex", FabricOptions::pkeyIndex, FabricOptions::pkeyIndex, 0xffff),
                new Option("timeout", FabricOptions::timeout, FabricOptions::timeout, 31),
                new Option("retryCount", FabricOptions::retryCount, FabricOptions::retryCount, 7),
                new Option("rnrRetry", FabricOptions::rnrRetry, FabricOptions::rnrRetry, 7),
                new Option("minRnrTimer", FabricOptions::minRnrTimer, FabricOptions::minRnrTimer, 31),
                new Option("hopLimit", FabricOptions::hopLimit, FabricOptions::hopLimit, 255));
    }

    @ParameterizedTest
    @MethodSource("ranged")
    void rangeEndsAreTakenAndOneBeyondIsRefused(Option option) {
        FabricOptions o = FabricOptions.defaults();
        assertEquals(-1, option.get().applyAsInt(o), option + " is unset by default");
        option.set().accept(o, 0);
        assertEquals(0, option.get().applyAsInt(o));
        option.set().accept(o, option.max());
        assertEquals(option.max(), option.get().applyAsInt(o));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> option.set().accept(o, option.max() + 1));
        assertEquals(option + " " + (option.max() + 1) + " is out of range: 0.." + option.max()
                + ", or -1 for the provider's default", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> option.set().accept(o, -2));
        assertEquals(option.max(), option.get().applyAsInt(o), "a refused value changes nothing");
        option.set().accept(o, -1);
        assertEquals(-1, option.get().applyAsInt(o), "-1 goes back to the provider's default");
    }

    @Test
    void theGidIndexTakesAnyIndex() {
        FabricOptions o = FabricOptions.defaults().gidIndex(254);
        assertEquals(254, o.gidIndex());
        assertEquals("gidIndex -5 is out of range: 0 or more, or -1 for the provider's default",
                assertThrows(IllegalArgumentException.class, () -> o.gidIndex(-5)).getMessage());
    }
}
