package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.internal.WrLayout.RecvWr;
import org.verbs4j.api.internal.WrLayout.SendWr;
import org.verbs4j.api.internal.WrLayout.Wc;
import org.verbs4j.api.internal.WrLayout.Wr;

/**
 * Proves the ABI constants of the data-path flyweights in verbs-api ({@link SendRequests},
 * {@link ReceiveRequests}, {@link WorkCompletions}) against the installed {@code <infiniband/verbs.h>}:
 * every {@code *_OFFSET} and {@code *_SIZE} is compared with {@code offsetof}/{@code sizeof} from a
 * compiled C probe ({@link LayoutIT#probe}), as {@link LayoutIT} does for the backend's tables. Also checks
 * the width of each field against the access the flyweight uses (a {@code uint16_t} read as an int would
 * read its neighbour too). A wrong value here means every posted work request or polled completion is corrupt.
 */
class ApiLayoutIT {
    private static final String SEND_WR = "struct ibv_send_wr";
    private static final String RECV_WR = "struct ibv_recv_wr";
    private static final String SGE = "struct ibv_sge";
    private static final String WC = "struct ibv_wc";

    /**
     * Where each table's constants point: {table, constant prefix, struct, member prefix}, every match counts
     * (the header {@code Wr} shares is checked in both request structs). A constant {@code <prefix>NAME} or
     * {@code <prefix>NAME_OFFSET} is {@code offsetof(struct, <member prefix>name)}; the sizes are in {@link #SIZES}.
     */
    private static final Object[][] PLACES = {
        {Wr.class, "SGE_", SGE, ""},
        {Wr.class, "", SEND_WR, ""},
        {Wr.class, "", RECV_WR, ""},
        {SendWr.class, "RDMA_", SEND_WR, "wr.rdma."},
        {SendWr.class, "ATOMIC_", SEND_WR, "wr.atomic."},
        {SendWr.class, "UD_", SEND_WR, "wr.ud."},
        {SendWr.class, "", SEND_WR, ""},
        {Wc.class, "", WC, ""},
    };

    private static final Map<String, String> SIZES = Map.of("SendWr.WR_SIZE", SEND_WR, "Wr.SGE_SIZE", SGE,
            "RecvWr.WR_SIZE", RECV_WR, "Wc.WC_SIZE", WC);
    private static final List<Class<?>> TABLES = List.of(Wr.class, SendWr.class, RecvWr.class, Wc.class);

    /** Bytes each flyweight reads or writes at a member (putLong/getLong 8, putInt/getInt 4, getUShort 2, getUByte 1). */
    private static final Map<String, String> WIDTHS = Map.of(
            SEND_WR, "wr_id 8 next 8 sg_list 8 num_sge 4 opcode 4 send_flags 4 imm_data 4 wr.rdma.remote_addr 8 "
                    + "wr.rdma.rkey 4 wr.atomic.remote_addr 8 wr.atomic.compare_add 8 wr.atomic.swap 8 wr.atomic.rkey 4 "
                    + "wr.ud.ah 8 wr.ud.remote_qpn 4 wr.ud.remote_qkey 4",
            SGE, "addr 8 length 4 lkey 4",
            RECV_WR, "wr_id 8 next 8 sg_list 8 num_sge 4",
            WC, "wr_id 8 status 4 opcode 4 vendor_err 4 byte_len 4 imm_data 4 qp_num 4 src_qp 4 wc_flags 4 "
                    + "pkey_index 2 slid 2 sl 1 dlid_path_bits 1");

    /** "Table.CONSTANT[@struct]" → the C expression that must yield its value, for every int constant of WrLayout. */
    static Map<String, String> offsets() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Class<?> k : TABLES) {
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod) || !Modifier.isPublic(mod) || f.getType() != int.class) {
                    continue;
                }
                String key = k.getSimpleName() + "." + f.getName();
                if (SIZES.containsKey(key)) {
                    m.put(key, "sizeof(" + SIZES.get(key) + ")");
                    continue;
                }
                boolean placed = false;
                for (Object[] p : PLACES) {
                    String prefix = (String) p[1];
                    if (p[0] != k || !f.getName().startsWith(prefix) || (prefix.isEmpty() && placedAsSge(k, f))) {
                        continue;
                    }
                    String member = f.getName().substring(prefix.length()).replaceFirst("_OFFSET$", "");
                    m.put(key + "@" + ((String) p[2]).substring("struct ibv_".length()),
                            "offsetof(" + p[2] + ", " + p[3] + member.toLowerCase() + ")");
                    placed = true;
                    if (k != Wr.class || !prefix.isEmpty()) {
                        break; // the first match, except for the header both request structs share
                    }
                }
                assertTrue(placed, "no struct for " + key);
            }
        }
        return m;
    }

    private static boolean placedAsSge(Class<?> k, Field f) {
        return k == Wr.class && f.getName().startsWith("SGE_");
    }

    /** {@code sizeof(member)} → the bytes the flyweights access there. */
    static Map<String, Integer> widths() {
        Map<String, Integer> m = new LinkedHashMap<>();
        WIDTHS.forEach((struct, list) -> {
            String[] w = list.split(" ");
            for (int i = 0; i < w.length; i += 2) {
                m.put("sizeof(((" + struct + " *) 0)->" + w[i] + ")", Integer.parseInt(w[i + 1]));
            }
        });
        return m;
    }

    @Test
    void everyOffsetAndSizeMatchesTheInstalledHeaders() throws IOException {
        Map<String, String> offsets = offsets();
        Map<String, Integer> widths = widths();
        Map<String, String> all = new LinkedHashMap<>(offsets);
        List<String> widthExprs = new ArrayList<>(widths.keySet());
        for (int i = 0; i < widthExprs.size(); i++) {
            all.put("width" + i, widthExprs.get(i));
        }
        Map<String, Long> theirs = LayoutIT.probe("#include <infiniband/verbs.h>\n", all);
        List<String> wrong = new ArrayList<>();
        offsets.forEach((key, expr) -> {
            if (constant(key) != theirs.get(key)) {
                wrong.add(key + ": verbs-api says " + constant(key) + ", the headers say " + theirs.get(key) + " (" + expr + ")");
            }
        });
        for (int i = 0; i < widthExprs.size(); i++) {
            String expr = widthExprs.get(i);
            if (widths.get(expr) != theirs.get("width" + i).intValue()) {
                wrong.add(expr + " is " + theirs.get("width" + i) + " bytes, but verbs-api accesses " + widths.get(expr));
            }
        }
        assertTrue(offsets.size() >= 40, "only " + offsets.size() + " constants in the layout tables");
        assertTrue(wrong.isEmpty(), "verbs-api disagrees with the installed headers:\n" + String.join("\n", wrong));
    }

    /** Every member whose offset a flyweight uses has a width to check, and every width a member that exists. */
    @Test
    void everyOffsetHasItsWidth() {
        Map<String, Integer> widths = widths();
        for (String expr : offsets().values()) {
            if (expr.startsWith("offsetof(")) {
                String[] sm = expr.substring("offsetof(".length(), expr.length() - 1).split(", ");
                assertTrue(widths.containsKey("sizeof(((" + sm[0] + " *) 0)->" + sm[1] + ")"), "no width for " + expr);
            }
        }
        assertEquals(offsets().size() - SIZES.size(), widths.size(), "widths of members no flyweight uses: " + widths);
    }

    private static int constant(String key) {
        String[] parts = key.split("@")[0].split("\\.");
        for (Class<?> k : TABLES) {
            if (k.getSimpleName().equals(parts[0])) {
                try {
                    return k.getField(parts[1]).getInt(null);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(key + ": " + e, e);
                }
            }
        }
        throw new AssertionError("unknown table in " + key);
    }
}
