package org.verbs4j.api;

import java.util.HashMap;
import java.util.Map;

/** Linux errno values that verbs return, with their symbolic names and {@code strerror} texts. */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int ERANGE = 34;
    public static final int ENOSYS = 38;
    public static final int ENODATA = 61;
    public static final int EPROTO = 71;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int EREMOTEIO = 121;
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

    /** The symbolic name, e.g. "ENOMEM", or "errno N" for a value not in the table. */
    public static String name(int errno) {
        String[] e = TABLE.get(errno);
        return e != null ? e[0] : "errno " + errno;
    }

    /** The {@code strerror} text, e.g. "Cannot allocate memory". */
    public static String describe(int errno) {
        String[] e = TABLE.get(errno);
        return e != null ? e[1] : "Unknown error " + errno;
    }
}
