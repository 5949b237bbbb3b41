package org.verbs4j.api;

/** The named RDMA device does not exist here; the message lists what does, or why there is none. */
public class NoSuchDeviceException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /**
     * A device that is not there: ENODEV.
     *
     * @param message which device, and what devices there are
     */
    public NoSuchDeviceException(String message) {
        this(Errno.ENODEV, message);
    }

    /**
     * With the errno that says why.
     *
     * @param errno   ENODEV (no such device) or ENOSYS (the kernel has no RDMA support)
     * @param message which device, and what devices there are, or why there is none
     */
    public NoSuchDeviceException(int errno, String message) {
        super("ibv_get_device_list", errno, message, "");
    }
}
