package org.verbs4j.api;

import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * Native value to enum constant, for the {@code of(int)} of the verbs enums: one dense array indexed by the
 * value, built once when the enum initialises, so a lookup is a bounds check and a load (no search, no
 * allocation: {@link WcStatus#of} and {@link WcOpcode#of} run on every polled completion).
 *
 * @param <E> the enum
 */
final class ValueTable<E extends Enum<E>> {
    /** The largest native value a table holds; the verbs enums' values are all far below it. */
    static final int MAX_VALUE = 4095;

    private final E[] byValue;
    private final E unknown;

    /**
     * @param constants the enum's {@code values()}
     * @param value     its native value; constants with a negative value (an {@code UNKNOWN}) are not looked up
     * @param unknown   what a value no constant has maps to ({@code null} or the enum's {@code UNKNOWN})
     * @throws IllegalArgumentException when two constants share a value, or a value is above {@link #MAX_VALUE}
     */
    ValueTable(E[] constants, ToIntFunction<E> value, E unknown) {
        int max = -1;
        for (E e : constants) {
            max = Math.max(max, value.applyAsInt(e));
        }
        if (max > MAX_VALUE) {
            throw new IllegalArgumentException("native value " + max + " is above " + MAX_VALUE + " in "
                    + Arrays.toString(constants));
        }
        this.byValue = Arrays.copyOf(constants, max + 1);
        Arrays.fill(byValue, null);
        for (E e : constants) {
            int v = value.applyAsInt(e);
            if (v < 0) {
                continue;
            }
            if (byValue[v] != null) {
                throw new IllegalArgumentException(byValue[v] + " and " + e + " share the native value " + v);
            }
            byValue[v] = e;
        }
        this.unknown = unknown;
    }

    /** The constant with native value {@code value}, or the table's unknown one. */
    E of(int value) {
        E e = value >= 0 && value < byValue.length ? byValue[value] : null;
        return e != null ? e : unknown;
    }
}
