package org.verbs4j.examples.cli;

import java.util.Objects;

/**
 * One declared option: its short letter and/or long name, the name of its argument (none for a flag), how the
 * argument becomes a value, its default and its help text. The usage text is generated from these
 * declarations ({@link OptionParser#help()}); a parsed command line gives the value back
 * ({@link CommandLine#get(Option)}).
 *
 * <pre>
 * Option&lt;Integer&gt; port = Option.of('p', "port", "PORT", Values.intIn(0, 65535), 18515,
 *         "listen on/connect to port PORT");
 * Option&lt;Boolean&gt; events = Option.flag('e', "events", "sleep on CQ events (default poll)");
 * </pre>
 *
 * <p>An option is a value: the same declaration may serve several tools, with another default where they
 * differ ({@link #withDefault}); a command line finds an option's value by its names, not by the object.
 *
 * @param <T> the value's type ({@code Boolean} for a flag)
 */
public final class Option<T> {
    /** No short letter. */
    public static final char NO_SHORT = 0;

    private final char shortName;
    private final String longName;
    private final String argName;
    private final ValueType<T> type;
    private final T defaultValue;
    private final String defaultText;
    private final String help;
    private final String unsupported;

    private Option(char shortName, String longName, String argName, ValueType<T> type, T defaultValue,
            String defaultText, String help, String unsupported) {
        if (shortName == NO_SHORT && longName == null) {
            throw new IllegalArgumentException("an option needs a short letter or a long name");
        }
        if (shortName == '-' || shortName == ':' || shortName == '=' || Character.isWhitespace(shortName)) {
            throw new IllegalArgumentException("'" + shortName + "' cannot be an option letter");
        }
        if (longName != null && (longName.isEmpty() || longName.startsWith("-") || longName.indexOf('=') >= 0)) {
            throw new IllegalArgumentException("'" + longName + "' cannot be a long option name");
        }
        this.shortName = shortName;
        this.longName = longName;
        this.argName = argName;
        this.type = type;
        this.defaultValue = defaultValue;
        this.defaultText = defaultText;
        this.help = Objects.requireNonNull(help, "help");
        this.unsupported = unsupported;
    }

    /**
     * An option that takes an argument.
     *
     * @param shortName its letter ({@code -p}), or {@link #NO_SHORT}
     * @param longName its long name ({@code --port}), or null
     * @param argName the argument's name in the usage text ({@code PORT})
     * @param type how the argument becomes a value
     * @param defaultValue the value when the option is not given (may be null: no default)
     * @param help one line of help; the usage adds {@code (default ...)} when there is a default
     * @param <T> the value's type
     * @return the option
     */
    public static <T> Option<T> of(char shortName, String longName, String argName, ValueType<T> type, T defaultValue,
            String help) {
        return new Option<>(shortName, longName, Objects.requireNonNull(argName, "argName"),
                Objects.requireNonNull(type, "type"), defaultValue, defaultValue == null ? null : defaultValue.toString(),
                help, null);
    }

    /**
     * A flag: no argument; its value is true when given, false otherwise.
     *
     * @param shortName its letter, or {@link #NO_SHORT}
     * @param longName its long name, or null
     * @param help one line of help
     * @return the option
     */
    public static Option<Boolean> flag(char shortName, String longName, String help) {
        return new Option<>(shortName, longName, null, null, Boolean.FALSE, null, help, null);
    }

    /**
     * An option another implementation of the tool has and this one refuses: given, it is a usage error that
     * names it and says what it would have done, rather than "invalid option".
     *
     * @param shortName its letter, or {@link #NO_SHORT}
     * @param longName its long name, or null
     * @param what what the option does, for the message ({@code "on-demand paging"})
     * @return the option
     */
    public static Option<Boolean> unsupported(char shortName, String longName, String what) {
        return new Option<>(shortName, longName, null, null, Boolean.FALSE, null, what, what);
    }

    /**
     * The same option with another default.
     *
     * @param value the new default
     * @return a copy
     */
    public Option<T> withDefault(T value) {
        return new Option<>(shortName, longName, argName, type, value, value == null ? null : value.toString(), help,
                unsupported);
    }

    /**
     * The same option with another text for its default in the usage ({@code "the first device found"}), or
     * none (null).
     *
     * @param text what the usage says after {@code default}
     * @return a copy
     */
    public Option<T> defaultText(String text) {
        return new Option<>(shortName, longName, argName, type, defaultValue, text, help, unsupported);
    }

    /** @return the short letter, or {@link #NO_SHORT} */
    public char shortName() {
        return shortName;
    }

    /** @return the long name, or null */
    public String longName() {
        return longName;
    }

    /** @return the argument's name in the usage, or null for a flag */
    public String argName() {
        return argName;
    }

    /** @return true when the option takes an argument */
    public boolean takesArgument() {
        return argName != null;
    }

    /** @return the value when the option is not given */
    public T defaultValue() {
        return defaultValue;
    }

    /** @return the default as the usage shows it, or null */
    public String defaultText() {
        return defaultText;
    }

    /** @return the help line (for a refused option: what it does) */
    public String help() {
        return help;
    }

    /** @return true for an option that is declared only to be refused by name */
    public boolean isUnsupported() {
        return unsupported != null;
    }

    /** @return the key a command line stores the value under: the long name, else the letter */
    String key() {
        return longName != null ? longName : String.valueOf(shortName);
    }

    /** Converts {@code text}; the message of a bad one names the option as {@code given}. */
    T convert(String given, String text) throws UsageException {
        try {
            return type.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("option " + given + ": " + e.getMessage());
        }
    }

    /** {@code -p, --port=PORT} (or {@code     --max_size=SIZE}): the left column of the usage. */
    String synopsis() {
        StringBuilder sb = new StringBuilder();
        sb.append(shortName != NO_SHORT ? "-" + shortName : "  ");
        if (longName != null) {
            sb.append(shortName != NO_SHORT ? ", " : "  ").append("--").append(longName);
            if (argName != null) {
                sb.append('=').append(argName);
            }
        } else if (argName != null) {
            sb.append(' ').append(argName);
        }
        return sb.toString();
    }

    /** Both names, for messages: {@code -o (--odp)}. */
    String names() {
        if (shortName != NO_SHORT && longName != null) {
            return "-" + shortName + " (--" + longName + ")";
        }
        return shortName != NO_SHORT ? "-" + shortName : "--" + longName;
    }

    @Override
    public String toString() {
        return names();
    }
}
