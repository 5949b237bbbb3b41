package org.verbs4j.api;

import java.util.HashMap;
import java.util.Map;

/** Linux errno values that verbs return, with their symbolic names and {@code strerror} texts. */
public final class Errno {
    /** {@code EPERM} (1): operation not permitted. */
    public static final int EPERM = 1;
    /** {@code ENOENT} (2): no such file or directory. */
    public static final int ENOENT = 2;
    /** {@code EINTR} (4): interrupted system call. */
    public static final int EINTR = 4;
    /** {@code EIO} (5): input/output error. */
    public static final int EIO = 5;
    /** {@code ENXIO} (6): no such device or address. */
    public static final int ENXIO = 6;
    /** {@code EBADF} (9): bad file descriptor. */
    public static final int EBADF = 9;
    /** {@code EAGAIN} (11): resource temporarily unavailable. */
    public static final int EAGAIN = 11;
    /** {@code ENOMEM} (12): cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** {@code EACCES} (13): permission denied. */
    public static final int EACCES = 13;
    /** {@code EFAULT} (14): bad address. */
    public static final int EFAULT = 14;
    /** {@code EBUSY} (16): device or resource busy. */
    public static final int EBUSY = 16;
    /** {@code EEXIST} (17): file exists. */
    public static final int EEXIST = 17;
    /** {@code ENODEV} (19): no such device. */
    public static final int ENODEV = 19;
    /** {@code EINVAL} (22): invalid argument. */
    public static final int EINVAL = 22;
    /** {@code EMFILE} (24): too many open files. */
    public static final int EMFILE = 24;
    /** {@code ENOSPC} (28): no space left on device. */
    public static final int ENOSPC = 28;
    /** {@code ERANGE} (34): numerical result out of range. */
    public static final int ERANGE = 34;
    /** {@code ENOSYS} (38): function not implemented. */
    public static final int ENOSYS = 38;
    /** {@code ENODATA} (61): no data available. */
    public static final int ENODATA = 61;
    /** {@code EPROTO} (71): protocol error. */
    public static final int EPROTO = 71;
    /** {@code EOPNOTSUPP} (95): operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** {@code EADDRINUSE} (98): address already in use. */
    public static final int EADDRINUSE = 98;
    /** {@code EADDRNOTAVAIL} (99): cannot assign requested address. */
    public static final int EADDRNOTAVAIL = 99;
    /** {@code ENETUNREACH} (101): network is unreachable. */
    public static final int ENETUNREACH = 101;
    /** {@code ECONNABORTED} (103): software caused connection abort. */
    public static final int ECONNABORTED = 103;
    /** {@code ECONNRESET} (104): connection reset by peer. */
    public static final int ECONNRESET = 104;
    /** {@code ENOBUFS} (105): no buffer space available. */
    public static final int ENOBUFS = 105;
    /** {@code EISCONN} (106): transport endpoint is already connected. */
    public static final int EISCONN = 106;
    /** {@code ENOTCONN} (107): transport endpoint is not connected. */
    public static final int ENOTCONN = 107;
    /** {@code ETIMEDOUT} (110): connection timed out. */
    public static final int ETIMEDOUT = 110;
    /** {@code ECONNREFUSED} (111): connection refused. */
    public static final int ECONNREFUSED = 111;
    /** {@code EHOSTUNREACH} (113): no route to host. */
    public static final int EHOSTUNREACH = 113;
    /** {@code EALREADY} (114): operation already in progress. */
    public static final int EALREADY = 114;
    /** {@code EINPROGRESS} (115): operation now in progress. */
    public static final int EINPROGRESS = 115;
    /** {@code EREMOTEIO} (121): remote I/O error. */
    public static final int EREMOTEIO = 121;
    /** {@code ECANCELED} (125): operation canceled. */
    public static final int ECANCELED = 125;

    private static final Map<Integer, String[]> TABLE = new HashMap<>();

    static {
        add(EPERM, "EPERM", "Operation not permitted");
        add(ENOENT, "ENOENT", "No such file or directory");
        add(EINTR, "EINTR", "Interrupted system call");
        add(EIO, "EIO", "Input/output error");
        add(ENXIO, "ENXIO", "No such device or address");
        add(EBADF, "EBADF", "Bad file descriptor");
        add(EAGAIN, "EAGAIN", "Resource temporarily unavailable");
        add(ENOMEM, "ENOMEM", "Cannot allocate memory");
        add(EACCES, "EACCES", "Permission denied");
        add(EFAULT, "EFAULT", "Bad address");
        add(EBUSY, "EBUSY", "Device or resource busy");
        add(EEXIST, "EEXIST", "File exists");
        add(ENODEV, "ENODEV", "No such device");
        add(EINVAL, "EINVAL", "Invalid argument");
        add(EMFILE, "EMFILE", "Too many open files");
        add(ENOSPC, "ENOSPC", "No space left on device");
        add(ERANGE, "ERANGE", "Numerical result out of range");
        add(ENOSYS, "ENOSYS", "Function not implemented");
        add(ENODATA, "ENODATA", "No data available");
        add(EPROTO, "EPROTO", "Protocol error");
        add(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported");
        add(EADDRINUSE, "EADDRINUSE", "Address already in use");
        add(EADDRNOTAVAIL, "EADDRNOTAVAIL", "Cannot assign requested address");
        add(ENETUNREACH, "ENETUNREACH", "Network is unreachable");
        add(ECONNABORTED, "ECONNABORTED", "Software caused connection abort");
        add(ECONNRESET, "ECONNRESET", "Connection reset by peer");
        add(ENOBUFS, "ENOBUFS", "No buffer space available");
        add(EISCONN, "EISCONN", "Transport endpoint is already connected");
        add(ENOTCONN, "ENOTCONN", "Transport endpoint is not connected");
        add(ETIMEDOUT, "ETIMEDOUT", "Connection timed out");
        add(ECONNREFUSED, "ECONNREFUSED", "Connection refused");
        add(EHOSTUNREACH, "EHOSTUNREACH", "No route to host");
        add(EALREADY, "EALREADY", "Operation already in progress");
        add(EINPROGRESS, "EINPROGRESS", "Operation now in progress");
        add(EREMOTEIO, "EREMOTEIO", "Remote I/O error");
        add(ECANCELED, "ECANCELED", "Operation canceled");
    }

    private Errno() {
    }

    private static void add(int value, String name, String text) {
        TABLE.put(value, new String[] {name, text});
    }

    /**
     * The symbolic name, e.g. "ENOMEM", or "errno N" for a value not in the table.
     *
     * @param errno the errno it returned (see {@link org.verbs4j.api.Errno})
     * @return the name, e.g. "ENOMEM"
     */
    public static String name(int errno) {
        String[] e = TABLE.get(errno);
        return e != null ? e[0] : "errno " + errno;
    }

    /**
     * The {@code strerror} text, e.g. "Cannot allocate memory".
     *
     * @param errno the errno it returned (see {@link org.verbs4j.api.Errno})
     * @return the text, e.g. "Cannot allocate memory"
     */
    public static String describe(int errno) {
        String[] e = TABLE.get(errno);
        return e != null ? e[1] : "Unknown error " + errno;
    }
}
