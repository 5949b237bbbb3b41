/**
 * Registered memory as {@link java.lang.foreign.MemorySegment}s, on JDK 22 or newer: register a native segment of
 * any {@link java.lang.foreign.Arena} with a protection domain, and see a memory region as a segment
 * ({@link org.verbs4j.foreign.Segments}).
 *
 * <p>The jar is the automatic module {@code org.verbs4j.foreign}. A view of a region registered from a raw address
 * (or allocated over 2 GiB) is made with the restricted method
 * {@link java.lang.foreign.MemorySegment#reinterpret(long, java.lang.foreign.Arena, java.util.function.Consumer)}:
 * grant this module native access ({@code --enable-native-access=org.verbs4j.foreign}, or {@code ALL-UNNAMED} on
 * the class path) or the JDK prints a warning the first time.
 */
package org.verbs4j.foreign;
