package org.verbs4j.jnr;

/**
 * One C function of a native library, called with its exact C parameter types ({@link CType}).
 * (JNR-FFI's interface mapping passed {@code _ibv_query_gid_ex}'s 32-bit arguments wrongly here,
 * so every verb is declared with explicit types.) Control-path calls save errno; read it with
 * {@link #errno()} right after a failing call, on the same thread. The call itself is {@link NativeCall}'s:
 * jffi on JDK 17-21, {@code java.lang.foreign} on JDK 22+.
 */
final class NativeFunction {
    final String name;
    final long address;
    private final NativeCall call;

    private NativeFunction(String name, long address, NativeCall call) {
        this.name = name;
        this.address = address;
        this.call = call;
    }

    /** Looks {@code name} up in {@code library}; a missing symbol is reported when the function is called. */
    static NativeFunction of(NativeLibrary library, String name, CType result, CType... params) {
        long address = library.symbol(name);
        return new NativeFunction(name, address, address == 0 ? null : NativeCall.of(address, result, params));
    }

    /** The errno the last call on this thread left. */
    static int errno() {
        return NativeCall.errno();
    }

    boolean exists() {
        return address != 0;
    }

    private NativeCall checked() {
        if (call == null) {
            throw new UnsupportedOperationException(name + " is not in the installed libibverbs/librdmacm "
                    + "(too old?); verbs4j needs rdma-core 28 or newer");
        }
        return call;
    }

    long call0() {
        return checked().call0();
    }

    long call(long a) {
        return checked().call(a);
    }

    long call(long a, long b) {
        return checked().call(a, b);
    }

    long call(long a, long b, long c) {
        return checked().call(a, b, c);
    }

    long call(long a, long b, long c, long d) {
        return checked().call(a, b, c, d);
    }

    long call(long a, long b, long c, long d, long e) {
        return checked().call(a, b, c, d, e);
    }

    long call(long a, long b, long c, long d, long e, long f) {
        return checked().call(a, b, c, d, e, f);
    }

    @Override
    public String toString() {
        return name + "@0x" + Long.toHexString(address);
    }
}
