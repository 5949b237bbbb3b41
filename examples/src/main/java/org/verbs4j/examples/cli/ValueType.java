package org.verbs4j.examples.cli;

/**
 * How an option's argument becomes a value. {@link Values} has the common ones (integers with a range,
 * sizes with {@code K}/{@code M}/{@code G} suffixes, choices, strings).
 *
 * <pre>
 * ValueType&lt;Integer&gt; port = Values.intIn(1, 65535);
 * port.parse("18515");   // 18515
 * port.parse("70000");   // IllegalArgumentException: "70000 is not between 1 and 65535"
 * </pre>
 *
 * @param <T> the value's type
 */
@FunctionalInterface
public interface ValueType<T> {
    /**
     * Converts one argument.
     *
     * @param text the argument as given
     * @return the value
     * @throws IllegalArgumentException with what is wrong with {@code text}, without the option's name (the
     *         parser adds it)
     */
    T parse(String text);
}
