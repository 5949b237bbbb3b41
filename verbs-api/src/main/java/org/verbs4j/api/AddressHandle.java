package org.verbs4j.api;

/** An address handle ({@code struct ibv_ah}): a destination for UD sends, see {@link SendRequests.SendRequest#ud}. */
public interface AddressHandle extends AutoCloseable {

    ProtectionDomain protectionDomain();

    AddressVector addressVector();

    /** The backend's handle written into a UD work request (the native {@code ibv_ah *} for libibverbs). */
    long handle();

    boolean isClosed();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
