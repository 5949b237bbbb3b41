package org.verbs4j.api;

/** An address handle ({@code struct ibv_ah}): a destination for UD sends, see {@link SendRequests.SendRequest#ud}. */
public interface AddressHandle extends AutoCloseable {

    /** {@return the protection domain} */
    ProtectionDomain protectionDomain();

    /** {@return the address vector} */
    AddressVector addressVector();

    /** {@return the backend's handle written into a UD work request (the native {@code ibv_ah *} for libibverbs)} */
    long handle();

    /** {@return whether closed} */
    boolean isClosed();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
