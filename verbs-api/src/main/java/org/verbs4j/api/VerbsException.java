package org.verbs4j.api;

/**
 * A verb failed. The message names the verb, the errno with its meaning, and what to check, e.g.
 * {@code ibv_reg_mr failed: ENOMEM (12, Cannot allocate memory) - check the locked-memory limit ...}.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The native verb that failed. */
    private final String verb;
    /** Its errno, positive; 0 when none. */
    private final int errno;
    /** What to check; may be null. */
    private final String hint;

    /**
     * A failed verb, with the hint verbs4j knows for its errno.
     *
     * @param verb   the native verb that failed, e.g. {@code ibv_modify_qp}
     * @param errno  the errno it returned or set (0 when it gave none)
     * @param detail what was being done, e.g. "RTR, dest_qp_num 0x12" (may be null)
     */
    public VerbsException(String verb, int errno, String detail) {
        this(verb, errno, detail, Hints.forFailure(verb, Math.abs(errno)));
    }

    /**
     * A failed verb with a hint of your own.
     *
     * @param verb   the native verb that failed, e.g. {@code ibv_modify_qp}
     * @param errno  the errno it returned or set (0 when it gave none; a negative one is taken as its absolute value)
     * @param detail what was being done (may be null)
     * @param hint   what to check (may be null)
     */
    public VerbsException(String verb, int errno, String detail, String hint) {
        // some providers return errno negated (siw); the meaning is the same
        super(format(verb, Math.abs(errno), detail, hint));
        this.verb = verb;
        this.errno = Math.abs(errno);
        this.hint = hint;
    }

    private static String format(String verb, int errno, String detail, String hint) {
        StringBuilder sb = new StringBuilder(verb).append(" failed");
        if (detail != null && !detail.isEmpty()) {
            sb.append(" (").append(detail).append(')');
        }
        if (errno != 0) {
            sb.append(": ").append(Errno.name(errno)).append(" (").append(errno).append(", ")
                    .append(Errno.describe(errno)).append(')');
        }
        if (hint != null && !hint.isEmpty()) {
            sb.append(". ").append(hint);
        }
        return sb.toString();
    }

    /** {@return the native verb, e.g. {@code ibv_create_qp}} */
    public String verb() {
        return verb;
    }

    /** {@return the errno, 0 when none was given} */
    public int errno() {
        return errno;
    }

    /** {@return the symbolic errno name, e.g. {@code EINVAL}} */
    public String errnoName() {
        return Errno.name(errno);
    }

    /** {@return what the user should check, or an empty string} */
    public String hint() {
        return hint == null ? "" : hint;
    }
}
