package org.verbs4j.examples.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import org.verbs4j.api.VerbsException;

/**
 * One getopt-style parser for the examples and {@code verbs4j-perf}: the command line as GNU
 * {@code getopt_long} reads it for rdma-core's tools and perftest.
 *
 * <ul>
 *   <li>{@code -s 64} and {@code -s64}; flags bundled ({@code -vV}), the last letter of a bundle may take an
 *       argument ({@code -ecn50});</li>
 *   <li>{@code --size=64} and {@code --size 64}; a long name may be abbreviated to any prefix that names one
 *       option ({@code --it} for {@code --iters});</li>
 *   <li>options and operands in any order; {@code --} ends the options; a lone {@code -} is an operand;</li>
 *   <li>{@code -h} and {@code --help} print the usage on stdout and exit 0, in every tool;</li>
 *   <li>a bad command line prints {@code PROG: what is wrong} on stderr with the usage lines, and exits
 *       {@link #EXIT_USAGE}; getopt's own wording for unknown options and missing arguments.</li>
 * </ul>
 *
 * Each tool declares its options once; the usage text is made from the declarations:
 *
 * <pre>
 * static final Option&lt;Integer&gt; PORT = Option.of('p', "port", "PORT", Values.intIn(0, 65535), 18515,
 *         "listen on/connect to port PORT");
 * static final Option&lt;Boolean&gt; EVENTS = Option.flag('e', "events", "sleep on CQ events (default poll)");
 *
 * OptionParser parser = new OptionParser("rc-pingpong")
 *         .synopsis("[options]", "start a server and wait for connection")
 *         .synopsis("[options] HOST", "connect to server at HOST")
 *         .operands(0, 1)
 *         .add(PORT).add(EVENTS);
 *
 * public static void main(String[] args) {
 *     System.exit(parser.launch(args, System.out, System.err, c -&gt; new Settings(c), s -&gt; s.run()));
 * }
 * </pre>
 */
public final class OptionParser {
    /** The exit status of a bad command line. */
    public static final int EXIT_USAGE = 2;
    /** {@code -h, --help}, which every parser has. */
    public static final Option<Boolean> HELP = Option.flag('h', "help", "print this help and exit");

    private final String prog;
    private final List<String[]> synopses = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<Option<?>> options = new ArrayList<>();
    private String refusal = "is not supported by verbs4j";
    private int minOperands;
    private int maxOperands;

    /**
     * A parser with {@code -h}/{@code --help} and no other option; no operands allowed until
     * {@link #operands} says otherwise.
     *
     * @param prog the program's name, for the usage and the messages ({@code rc-pingpong})
     */
    public OptionParser(String prog) {
        this.prog = prog;
        options.add(HELP);
    }

    /** @return the program's name */
    public String prog() {
        return prog;
    }

    /**
     * Adds a usage line: {@code PROG ARGS}, and what that form does.
     *
     * @param args the line after the program's name ({@code "[options] HOST"})
     * @param what what that form does, or null
     * @return this
     */
    public OptionParser synopsis(String args, String what) {
        synopses.add(new String[] {args, what});
        return this;
    }

    /**
     * Adds a paragraph to the usage text, after the options.
     *
     * @param text the paragraph (may have several lines)
     * @return this
     */
    public OptionParser note(String text) {
        notes.add(text);
        return this;
    }

    /**
     * How many operands (words that are not options) the tool takes.
     *
     * @param min at least
     * @param max at most
     * @return this
     */
    public OptionParser operands(int min, int max) {
        this.minOperands = min;
        this.maxOperands = max;
        return this;
    }

    /**
     * What the message about a refused option ({@link Option#unsupported}) ends with.
     *
     * @param text e.g. {@code "is not implemented by verbs4j-perf"}
     * @return this
     */
    public OptionParser refusal(String text) {
        this.refusal = text;
        return this;
    }

    /**
     * Declares an option.
     *
     * @param option the option
     * @return this
     * @throws IllegalArgumentException when its letter or long name is taken already
     */
    public OptionParser add(Option<?> option) {
        for (Option<?> o : options) {
            if ((option.shortName() != Option.NO_SHORT && option.shortName() == o.shortName())
                    || (option.longName() != null && option.longName().equals(o.longName()))) {
                throw new IllegalArgumentException(prog + ": " + option + " clashes with " + o);
            }
        }
        options.add(option);
        return this;
    }

    /**
     * Declares several options.
     *
     * @param more the options, in the order the usage lists them
     * @return this
     */
    public OptionParser add(Option<?>... more) {
        for (Option<?> o : more) {
            add(o);
        }
        return this;
    }

    /** @return the declared options, {@code -h} first */
    public List<Option<?>> options() {
        return List.copyOf(options);
    }

    /**
     * Parses {@code args}. Parsing stops at {@code -h}/{@code --help}
     * ({@link CommandLine#helpRequested()}); a bad option before it is still an error.
     *
     * @param args the arguments
     * @return the parsed command line
     * @throws UsageException for an unknown, refused or ambiguous option, a missing or bad argument, or too
     *         few or too many operands
     */
    public CommandLine parse(String... args) throws UsageException {
        Parse p = new Parse();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                for (int j = i + 1; j < args.length; j++) {
                    p.operands.add(args[j]);
                }
                break;
            }
            if (a.startsWith("--")) {
                i = longOption(p, args, i);
            } else if (a.startsWith("-") && a.length() > 1) {
                i = shortOptions(p, args, i);
            } else {
                p.operands.add(a);
            }
            if (p.help) {
                return p.result();
            }
        }
        if (p.operands.size() > maxOperands) {
            List<String> extra = p.operands.subList(maxOperands, p.operands.size());
            throw new UsageException(maxOperands == 0 ? "unexpected argument '" + extra.get(0) + "'"
                    : "too many arguments: '" + String.join("' '", extra) + "'");
        }
        if (p.operands.size() < minOperands) {
            throw new UsageException("missing argument");
        }
        return p.result();
    }

    /** The state of one parse. */
    private static final class Parse {
        final java.util.Map<String, Object> values = new java.util.HashMap<>();
        final java.util.Map<String, Integer> positions = new java.util.HashMap<>();
        final List<String> operands = new ArrayList<>();
        boolean help;
        int next;

        CommandLine result() {
            return new CommandLine(values, positions, operands, help);
        }
    }

    /** {@code --name}, {@code --name=value} or {@code --name value}; returns the index of the last word used. */
    private int longOption(Parse p, String[] args, int i) throws UsageException {
        String body = args[i].substring(2);
        int eq = body.indexOf('=');
        String name = eq >= 0 ? body.substring(0, eq) : body;
        Option<?> o = findLong(name);
        String given = "--" + o.longName();
        String value = eq >= 0 ? body.substring(eq + 1) : null;
        refuse(o, given);
        if (!o.takesArgument()) {
            if (value != null) {
                throw new UsageException("option '" + given + "' doesn't allow an argument");
            }
            set(p, o, given, null, i);
            return i;
        }
        if (value == null) {
            if (i + 1 >= args.length) {
                throw new UsageException("option '" + given + "' requires an argument");
            }
            value = args[++i];
        }
        set(p, o, given, value, i);
        return i;
    }

    /** {@code -abc}, {@code -s64}, {@code -s 64}; returns the index of the last word used. */
    private int shortOptions(Parse p, String[] args, int i) throws UsageException {
        String a = args[i];
        int at = i;
        for (int k = 1; k < a.length(); k++) {
            char c = a.charAt(k);
            Option<?> o = findShort(c);
            String given = "-" + c;
            refuse(o, given);
            if (!o.takesArgument()) {
                set(p, o, given, null, at);
                if (p.help) {
                    return i;
                }
                continue;
            }
            String value;
            if (k + 1 < a.length()) {
                value = a.substring(k + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageException("option requires an argument -- '" + c + "'");
            }
            set(p, o, given, value, at);
            break;
        }
        return i;
    }

    private void set(Parse p, Option<?> o, String given, String value, int at) throws UsageException {
        if (o == HELP) {
            p.help = true;
            return;
        }
        p.values.put(o.key(), value == null ? Boolean.TRUE : o.convert(given, value));
        p.positions.put(o.key(), p.next++);
    }

    private void refuse(Option<?> o, String given) throws UsageException {
        if (o.isUnsupported()) {
            String other = given.startsWith("--")
                    ? (o.shortName() == Option.NO_SHORT ? "" : "-" + o.shortName() + ", ")
                    : (o.longName() == null ? "" : "--" + o.longName() + ", ");
            throw new UsageException("option " + given + " (" + other + o.help() + ") " + refusal);
        }
    }

    private Option<?> findShort(char c) throws UsageException {
        for (Option<?> o : options) {
            if (o.shortName() == c) {
                return o;
            }
        }
        throw new UsageException("invalid option -- '" + c + "'");
    }

    /** The option named {@code name}, or the one option whose long name starts with it (getopt_long's rule). */
    private Option<?> findLong(String name) throws UsageException {
        List<Option<?>> prefixed = new ArrayList<>();
        for (Option<?> o : options) {
            if (o.longName() == null) {
                continue;
            }
            if (o.longName().equals(name)) {
                return o;
            }
            if (!name.isEmpty() && o.longName().startsWith(name)) {
                prefixed.add(o);
            }
        }
        if (prefixed.size() == 1) {
            return prefixed.get(0);
        }
        if (prefixed.isEmpty()) {
            throw new UsageException("unrecognized option '--" + name + "'");
        }
        StringBuilder sb = new StringBuilder("option '--" + name + "' is ambiguous; possibilities:");
        for (Option<?> o : prefixed) {
            sb.append(" '--").append(o.longName()).append('\'');
        }
        throw new UsageException(sb.toString());
    }

    // ---- the texts ----

    /** @return the usage lines: {@code Usage: PROG ARGS} and one more line per further form */
    public String usageLines() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < synopses.size(); i++) {
            sb.append(i == 0 ? "Usage: " : "       ").append(prog);
            String args = synopses.get(i)[0];
            if (!args.isEmpty()) {
                sb.append(' ').append(args);
            }
            sb.append('\n');
        }
        if (synopses.isEmpty()) {
            sb.append("Usage: ").append(prog).append(" [options]\n");
        }
        return sb.toString();
    }

    /** @return the whole usage text that {@code -h} prints: the forms, every option with its default, the notes */
    public String help() {
        StringBuilder sb = new StringBuilder("Usage:\n");
        List<String> forms = new ArrayList<>();
        int formWidth = 0;
        for (String[] s : synopses) {
            String f = prog + (s[0].isEmpty() ? "" : " " + s[0]);
            forms.add(f);
            formWidth = Math.max(formWidth, f.length());
        }
        if (synopses.isEmpty()) {
            sb.append("  ").append(prog).append(" [options]\n");
        }
        for (int i = 0; i < synopses.size(); i++) {
            String what = synopses.get(i)[1];
            sb.append("  ").append(what == null ? forms.get(i) : pad(forms.get(i), formWidth + 4) + what).append('\n');
        }
        sb.append("\nOptions:\n");
        List<Option<?>> shown = new ArrayList<>();
        List<Option<?>> refused = new ArrayList<>();
        for (Option<?> o : options) {
            (o.isUnsupported() ? refused : shown).add(o);
        }
        shown.remove(HELP);
        shown.add(HELP);
        options(sb, shown);
        if (!refused.isEmpty()) {
            // names only (the message says what one does when it is given): perftest has dozens
            sb.append("\nThese ").append(refusal.replaceFirst("^is ", "are ")).append(":\n");
            StringBuilder line = new StringBuilder(" ");
            for (Option<?> o : refused) {
                String item = " " + o.names().replace(" (", "/").replace(")", "");
                if (line.length() + item.length() > 100) {
                    sb.append(line).append('\n');
                    line = new StringBuilder(" ");
                }
                line.append(item);
            }
            sb.append(line).append('\n');
        }
        for (String n : notes) {
            sb.append('\n').append(n).append(n.endsWith("\n") ? "" : "\n");
        }
        return sb.toString();
    }

    /** One line per option: names and argument, help, default; the help column after the widest names. */
    private static void options(StringBuilder sb, List<Option<?>> list) {
        int width = 0;
        for (Option<?> o : list) {
            width = Math.max(width, o.synopsis().length());
        }
        width = Math.min(width, 30);
        for (Option<?> o : list) {
            String left = "  " + o.synopsis();
            String text = o.help() + (o.defaultText() == null ? "" : " (default " + o.defaultText() + ")");
            if (o.synopsis().length() > width) {
                sb.append(left).append('\n').append(pad("", width + 4));
            } else {
                sb.append(pad(left, width + 4));
            }
            sb.append(text).append('\n');
        }
    }

    private static String pad(String s, int width) {
        StringBuilder sb = new StringBuilder(s);
        while (sb.length() < width) {
            sb.append(' ');
        }
        return sb.toString();
    }

    /**
     * Prints a bad command line's diagnostic on {@code err}: {@code PROG: MESSAGE}, the usage lines, and where
     * to find the rest.
     *
     * @param e what is wrong
     * @param err stderr
     * @return {@link #EXIT_USAGE}
     */
    public int reportUsageError(UsageException e, PrintStream err) {
        err.print(prog + ": " + e.getMessage() + "\n" + usageLines() + "Try '" + prog + " --help' for more information.\n");
        err.flush();
        return EXIT_USAGE;
    }

    /** Turns a parsed command line into the tool's settings, checking what the parser cannot (options that exclude each other). */
    @FunctionalInterface
    public interface Settings<T> {
        /**
         * @param c the parsed command line
         * @return the tool's settings
         * @throws UsageException when the options do not go together
         */
        T from(CommandLine c) throws UsageException;
    }

    /**
     * The common {@code main} of every tool: parse; on {@code -h}/{@code --help} print the usage on
     * {@code out} and return 0; on a bad command line report it on {@code err} and return {@link #EXIT_USAGE};
     * otherwise run the tool. A {@link VerbsException} out of the tool (a device or port that is not there, a
     * verb the device refuses) is reported as one line {@code PROG: MESSAGE} on {@code err}, not a stack trace,
     * and the exit status is its errno (1 when it has none); other exceptions are bugs and propagate.
     *
     * @param args the arguments
     * @param out stdout
     * @param err stderr
     * @param settings makes the tool's settings from the command line (its own checks throw {@link UsageException})
     * @param tool runs the tool and returns its exit status
     * @param <T> the settings' type
     * @return the exit status
     */
    public <T> int launch(String[] args, PrintStream out, PrintStream err, Settings<T> settings, ToIntFunction<T> tool) {
        T s;
        try {
            CommandLine c = parse(args);
            if (c.helpRequested()) {
                out.print(help());
                out.flush();
                return 0;
            }
            s = settings.from(c);
        } catch (UsageException e) {
            return reportUsageError(e, err);
        }
        try {
            return tool.applyAsInt(s);
        } catch (VerbsException e) {
            out.flush();
            err.println(prog + ": " + e.getMessage());
            err.flush();
            return e.errno() > 0 && e.errno() < 126 ? e.errno() : 1;
        }
    }
}
