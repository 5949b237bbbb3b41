package org.verbs4j.examples.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The value types of the examples' and {@code verbs4j-perf}'s options.
 *
 * <p>Numbers are read as C's {@code strtol(arg, NULL, 0)} reads them, which is what rdma-core's tools and
 * perftest use: decimal, {@code 0x} hexadecimal, or octal with a leading {@code 0}, with an optional sign.
 * Unlike {@code strtol}, the whole argument must be the number: {@code 12abc} is refused rather than read as 12.
 */
public final class Values {
    private Values() {
    }

    /**
     * A number between {@code min} and {@code max} (inclusive).
     *
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @return the type
     */
    public static ValueType<Integer> intIn(int min, int max) {
        return text -> (int) inRange(number(text), min, max);
    }

    /**
     * A number between {@code min} and {@code max} (inclusive), as a {@code long} (for C's {@code unsigned int}).
     *
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @return the type
     */
    public static ValueType<Long> longIn(long min, long max) {
        return text -> inRange(number(text), min, max);
    }

    /**
     * A size in bytes between {@code min} and {@code max}: a number, optionally followed by {@code K},
     * {@code M} or {@code G} (binary: 1024, 1024², 1024³), as perftest's {@code -s 4K}.
     *
     * @param min the smallest size accepted
     * @param max the largest size accepted
     * @return the type
     */
    public static ValueType<Long> size(long min, long max) {
        return text -> {
            int shift = 0;
            String n = text;
            if (!n.isEmpty()) {
                switch (Character.toUpperCase(n.charAt(n.length() - 1))) {
                    case 'K': shift = 10; break;
                    case 'M': shift = 20; break;
                    case 'G': shift = 30; break;
                    default: break;
                }
            }
            if (shift > 0) {
                n = n.substring(0, n.length() - 1);
            }
            long v;
            try {
                v = number(n);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not a size (a number, optionally with K, M or G)");
            }
            if (shift > 0 && Math.abs(v) > Long.MAX_VALUE >> shift) {
                throw new IllegalArgumentException("'" + text + "' is not between " + min + " and " + max);
            }
            return inRange(v << shift, min, max);
        };
    }

    /** @return any string, as given */
    public static ValueType<String> string() {
        return text -> text;
    }

    /**
     * One of a fixed set of words, each standing for a value ({@code -m 1024} for {@code Mtu.MTU_1024}).
     *
     * @param choices the accepted words, in the order the error message lists them, and their values
     * @param <T> the values' type
     * @return the type
     */
    public static <T> ValueType<T> choice(Map<String, T> choices) {
        Map<String, T> copy = new LinkedHashMap<>(choices);
        return text -> {
            T v = copy.get(text);
            if (v == null) {
                throw new IllegalArgumentException("'" + text + "' is not one of " + String.join(", ", copy.keySet()));
            }
            return v;
        };
    }

    /**
     * One of an enum's constants, by name, in any case.
     *
     * @param type the enum
     * @param <E> the enum's type
     * @return the type
     */
    public static <E extends Enum<E>> ValueType<E> enumOf(Class<E> type) {
        Map<String, E> names = new LinkedHashMap<>();
        for (E e : type.getEnumConstants()) {
            names.put(e.name().toLowerCase(Locale.ROOT), e);
        }
        ValueType<E> byName = choice(names);
        return text -> byName.parse(text.toLowerCase(Locale.ROOT));
    }

    /**
     * Reads a whole argument as {@code strtol(text, NULL, 0)} reads its start: optional sign, then {@code 0x}
     * hexadecimal, {@code 0} octal or decimal.
     *
     * @param text the argument
     * @return its value
     * @throws IllegalArgumentException when {@code text} is not such a number, or does not fit a {@code long}
     */
    public static long number(String text) {
        int i = 0;
        int n = text.length();
        boolean negative = false;
        if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        int radix = 10;
        if (i + 1 < n && text.charAt(i) == '0' && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X')) {
            radix = 16;
            i += 2;
        } else if (i + 1 < n && text.charAt(i) == '0') {
            radix = 8;
            i++;
        }
        if (i >= n) {
            throw notANumber(text);
        }
        long v = 0;
        for (; i < n; i++) {
            int d = Character.digit(text.charAt(i), radix);
            if (d < 0 || text.charAt(i) > 'z') {
                throw notANumber(text);
            }
            if (v > (Long.MAX_VALUE - d) / radix) {
                throw new IllegalArgumentException("'" + text + "' is too large");
            }
            v = v * radix + d;
        }
        return negative ? -v : v;
    }

    private static IllegalArgumentException notANumber(String text) {
        return new IllegalArgumentException("'" + text + "' is not a number");
    }

    private static long inRange(long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(v + " is not between " + min + " and " + max);
        }
        return v;
    }
}
