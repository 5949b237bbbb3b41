package org.verbs4j.jnr;

/**
 * The C types of the functions verbs4j calls, named once for both call mechanisms (jffi's types on JDK 17-21,
 * {@code java.lang.foreign} layouts on JDK 22+). The exact type matters: an {@code int} or {@code uint8_t}
 * passed as a 64-bit value leaves the callee reading garbage in the register's upper bits on some ABIs.
 */
enum CType {
    VOID,
    UINT8,
    SINT32,
    UINT32,
    SINT64,
    UINT64,
    /** A pointer, passed and returned as a {@code long} address (x86_64 LP64). */
    POINTER
}
