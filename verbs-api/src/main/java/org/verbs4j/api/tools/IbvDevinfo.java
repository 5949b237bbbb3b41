package org.verbs4j.api.tools;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the text {@code ibv_devinfo} (plain, {@code -v} or {@code -vv}, rdma-core or MLNX_OFED)
 * prints, as it reaches users: with tabs, with tabs expanded to spaces, or with no-break spaces from a
 * mail client. Used to test verbs4j against the C tool on the same device, and to test fabric logic on
 * outputs recorded on real hardware.
 *
 * <pre>{@code
 * List<IbvDevinfo.Hca> hcas = IbvDevinfo.parse(text);
 * String state = hcas.get(0).ports().get(0).get("state");   // "PORT_ACTIVE (4)"
 * }</pre>
 */
public final class IbvDevinfo {
    private static final Pattern KEY_VALUE = Pattern.compile("^\\s*([A-Za-z_][A-Za-z0-9_ .-]*?):\\s*(.*?)\\s*$");
    private static final Pattern GID = Pattern.compile("^\\s*GID\\[\\s*(\\d+)\\]:\\s*([^,\\s]+)\\s*(?:,\\s*(.+?))?\\s*$");

    private IbvDevinfo() {
    }

    /**
     * A GID line: index, the GID as printed, and the type when the tool printed one.
     *
     * @param index the GID index
     * @param gid   the GID as printed
     * @param type  the GID type as printed ({@code RoCE v2}, ...), or null when the line has none
     */
    public record GidLine(int index, String gid, String type) {
    }

    /**
     * One port: its number, its "key: value" fields, flag lists and GID lines.
     *
     * @param number the port number, from 1
     * @param fields the "key: value" lines, by key
     * @param flags  the flag lists (e.g. {@code capability_mask}), by key
     * @param gids   the GID lines, in order
     */
    public record Port(int number, Map<String, String> fields, Map<String, List<String>> flags, List<GidLine> gids) {
        /**
         * The value printed for {@code key}, or null.
         *
         * @param key the field name, e.g. {@code state}
         * @return the value as printed, or null when the port has no such field
         */
        public String get(String key) {
            return fields.get(key);
        }
    }

    /**
     * One device ({@code hca_id}).
     *
     * @param name   the device name ({@code hca_id})
     * @param fields the "key: value" lines of the device block, by key
     * @param flags  the flag lists of the device block (e.g. {@code device_cap_flags}), by key
     * @param ports  the ports, in order
     */
    public record Hca(String name, Map<String, String> fields, Map<String, List<String>> flags, List<Port> ports) {
        /**
         * The value of field {@code key} of the device block, as printed.
         *
         * @param key the field name, e.g. {@code fw_ver}
         * @return the value, or null when the block has no such field
         */
        public String get(String key) {
            return fields.get(key);
        }

        /**
         * The block of port {@code number}.
         *
         * @param number the port number, from 1
         * @return the port, or null when the device has no such port
         */
        public Port port(int number) {
            for (Port p : ports) {
                if (p.number == number) {
                    return p;
                }
            }
            return null;
        }
    }

    /**
     * Parses every {@code hca_id} block of {@code text}.
     *
     * @param text the output of {@code ibv_devinfo} or {@code ibv_devinfo -v}
     * @return the devices, in the order of the text
     */
    public static List<Hca> parse(String text) {
        List<Hca> out = new ArrayList<>();
        Builder hca = null;
        Builder port = null;
        String lastKey = null;
        Map<String, List<String>> lastFlags = null;
        for (String rawLine : text.split("\\R")) {
            String line = rawLine.replace('\u00a0', ' ');
            if (line.isBlank()) {
                continue;
            }
            Matcher g = GID.matcher(line);
            if (g.matches()) {
                if (port != null) {
                    port.gids.add(new GidLine(Integer.parseInt(g.group(1)), g.group(2), g.group(3)));
                }
                continue;
            }
            Matcher kv = KEY_VALUE.matcher(line);
            if (kv.matches()) {
                String key = kv.group(1).trim();
                String value = kv.group(2);
                if (key.equals("hca_id")) {
                    if (hca != null) {
                        out.add(hca.hca(port));
                    }
                    hca = new Builder(value);
                    port = null;
                } else if (key.equals("port") && hca != null) {
                    if (port != null) {
                        hca.ports.add(port.port());
                    }
                    port = new Builder(value);
                } else if (hca != null) {
                    Builder target = port != null ? port : hca;
                    target.fields.put(key, value);
                    lastKey = key;
                    lastFlags = target.flags;
                }
                continue;
            }
            // an indented line without a colon: a flag name under the last key (device_cap_flags, odp caps)
            if (lastKey != null && lastFlags != null && !line.trim().isEmpty()) {
                lastFlags.computeIfAbsent(lastKey, k -> new ArrayList<>()).add(line.trim());
            }
        }
        if (hca != null) {
            out.add(hca.hca(port));
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The {@code hca_id} block of {@code name}, or null.
     *
     * @param hcas devices from {@link #parse}
     * @param name the device name ({@code hca_id})
     * @return the device, or null when none has that name
     */
    public static Hca find(List<Hca> hcas, String name) {
        for (Hca h : hcas) {
            if (h.name.equals(name)) {
                return h;
            }
        }
        return null;
    }

    /**
     * The number in a value such as {@code "PORT_ACTIVE (4)"} or {@code "1024 (3)"}; -1 when none.
     *
     * @param value the value as printed
     * @return the number in parentheses, or -1 when there is none
     */
    public static int codeInParens(String value) {
        Matcher m = Pattern.compile("\\((\\d+)\\)\\s*$").matcher(value);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /**
     * Parses a decimal or {@code 0x} hex value as ibv_devinfo prints it.
     *
     * @param value the value as printed, decimal or {@code 0x} hex
     * @return the number
     */
    public static long number(String value) {
        String v = value.trim();
        int sp = v.indexOf(' ');
        if (sp > 0) {
            v = v.substring(0, sp);
        }
        if (v.startsWith("0x") || v.startsWith("0X")) {
            return Long.parseUnsignedLong(v.substring(2), 16);
        }
        return Long.parseLong(v);
    }

    /**
     * A GUID as printed ({@code 0002:c903:0042:a6e0}) as a number.
     *
     * @param value the GUID as printed, four groups of four hex digits
     * @return the GUID as a number
     */
    public static long guid(String value) {
        return Long.parseUnsignedLong(value.trim().replace(":", ""), 16);
    }

    private static final class Builder {
        final String name;
        final Map<String, String> fields = new LinkedHashMap<>();
        final Map<String, List<String>> flags = new LinkedHashMap<>();
        final List<GidLine> gids = new ArrayList<>();
        final List<Port> ports = new ArrayList<>();

        Builder(String name) {
            this.name = name.trim();
        }

        Port port() {
            return new Port(Integer.parseInt(name), Collections.unmodifiableMap(fields),
                    Collections.unmodifiableMap(flags), List.copyOf(gids));
        }

        Hca hca(Builder openPort) {
            if (openPort != null) {
                ports.add(openPort.port());
            }
            return new Hca(name, Collections.unmodifiableMap(fields), Collections.unmodifiableMap(flags),
                    List.copyOf(ports));
        }
    }
}
