package org.verbs4j.examples.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed command line ({@link OptionParser#parse}): each option's value (the last one given wins, as with
 * getopt), whether and where it was given, and the operands (words that are not options) in order.
 *
 * <pre>
 * CommandLine c = parser.parse(args);
 * int port = c.get(PORT);                        // the value given, or the declared default
 * String host = c.operands().isEmpty() ? null : c.operands().get(0);
 * </pre>
 */
public final class CommandLine {
    private final Map<String, Object> values;
    private final Map<String, Integer> positions;
    private final List<String> operands;
    private final boolean help;

    CommandLine(Map<String, Object> values, Map<String, Integer> positions, List<String> operands, boolean help) {
        this.values = new HashMap<>(values);
        this.positions = new HashMap<>(positions);
        this.operands = List.copyOf(operands);
        this.help = help;
    }

    /**
     * The option's value: the last one given, else its default.
     *
     * @param option a declared option (or a copy of it with another default: options are found by name)
     * @param <T> the value's type
     * @return the value (null when neither given nor defaulted)
     */
    @SuppressWarnings("unchecked")
    public <T> T get(Option<T> option) {
        String k = option.key();
        return values.containsKey(k) ? (T) values.get(k) : option.defaultValue();
    }

    /**
     * @param option a declared option
     * @return true when the command line gave it
     */
    public boolean given(Option<?> option) {
        return positions.containsKey(option.key());
    }

    /**
     * When the option was last given: 0 for the first option on the line, 1 for the next (a bundle such as
     * {@code -cs} counts each letter), so that of two options that undo each other ({@code rping -s} and
     * {@code -c}) the later one can win.
     *
     * @param option a declared option
     * @return the place of its last occurrence among the options given, or -1
     */
    public int position(Option<?> option) {
        return positions.getOrDefault(option.key(), -1);
    }

    /** @return the words that are not options, in order (those after {@code --} included) */
    public List<String> operands() {
        return operands;
    }

    /** @return true when {@code -h} or {@code --help} was given: the tool prints its usage and exits 0 */
    public boolean helpRequested() {
        return help;
    }
}
