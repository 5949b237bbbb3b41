package org.verbs4j.api;

/** The named RDMA device does not exist here; the message lists what does, or why there is none. */
public class NoSuchDeviceException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /**
     * A device that is not there.
     *
     * @param message which device, and what devices there are
     */
    public NoSuchDeviceException(String message) {
        super("ibv_get_device_list", Errno.ENODEV, message, "");
    }
}
