package org.verbs4j.examples.cli;

/**
 * A bad command line: an unknown option, a missing or malformed argument, a value out of range, or options
 * that do not go together. The message is the diagnostic without the program's name (for example
 * {@code "invalid option -- 'x'"} or {@code "option -n: 3 is not between 5 and 100000000"});
 * {@link OptionParser#launch} prints it on stderr as {@code PROG: MESSAGE}, followed by the usage lines,
 * and exits with {@link OptionParser#EXIT_USAGE}.
 *
 * <p>A tool's own checks across options (after {@link OptionParser#parse}) throw it too, so that every bad
 * command line is reported the same way.
 */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * A bad command line.
     *
     * @param message what is wrong, naming the option as the user wrote it
     */
    public UsageException(String message) {
        super(message, null, false, false);
    }
}
