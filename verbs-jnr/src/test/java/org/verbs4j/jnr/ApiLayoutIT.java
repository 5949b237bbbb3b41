package org.verbs4j.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.verbs4j.api.ReceiveRequests;
import org.verbs4j.api.SendRequests;
import org.verbs4j.api.WorkCompletions;

/**
 * Proves the ABI constants of the data-path flyweights in verbs-api ({@link SendRequests},
 * {@link ReceiveRequests}, {@link WorkCompletions}) against the installed {@code <infiniband/verbs.h>}:
 * every {@code *_OFFSET} and {@code *_SIZE} is compared with {@code offsetof}/{@code sizeof} from a
 * compiled C probe, as {@link LayoutIT} does for the backend's {@link Layout}. Also checks the width of
 * each field against the access the flyweight uses (a {@code uint16_t} read as an int would read its
 * neighbour too). A wrong value here means every posted work request or polled completion is corrupt.
 */
class ApiLayoutIT {

    private static final String SEND_WR = "struct ibv_send_wr";
    private static final String RECV_WR = "struct ibv_recv_wr";
    private static final String SGE = "struct ibv_sge";
    private static final String WC = "struct ibv_wc";

    /** "Class.CONSTANT" → the C expression that must yield its value. */
    static Map<String, String> offsets() {
        Map<String, String> m = new LinkedHashMap<>();
        String s = "SendRequests.";
        m.put(s + "WR_SIZE", "sizeof(" + SEND_WR + ")");
        m.put(s + "WR_ID_OFFSET", offsetof(SEND_WR, "wr_id"));
        m.put(s + "NEXT_OFFSET", offsetof(SEND_WR, "next"));
        m.put(s + "SG_LIST_OFFSET", offsetof(SEND_WR, "sg_list"));
        m.put(s + "NUM_SGE_OFFSET", offsetof(SEND_WR, "num_sge"));
        m.put(s + "OPCODE_OFFSET", offsetof(SEND_WR, "opcode"));
        m.put(s + "SEND_FLAGS_OFFSET", offsetof(SEND_WR, "send_flags"));
        m.put(s + "IMM_DATA_OFFSET", offsetof(SEND_WR, "imm_data"));
        m.put(s + "RDMA_REMOTE_ADDR_OFFSET", offsetof(SEND_WR, "wr.rdma.remote_addr"));
        m.put(s + "RDMA_RKEY_OFFSET", offsetof(SEND_WR, "wr.rdma.rkey"));
        m.put(s + "ATOMIC_REMOTE_ADDR_OFFSET", offsetof(SEND_WR, "wr.atomic.remote_addr"));
        m.put(s + "ATOMIC_COMPARE_ADD_OFFSET", offsetof(SEND_WR, "wr.atomic.compare_add"));
        m.put(s + "ATOMIC_SWAP_OFFSET", offsetof(SEND_WR, "wr.atomic.swap"));
        m.put(s + "ATOMIC_RKEY_OFFSET", offsetof(SEND_WR, "wr.atomic.rkey"));
        m.put(s + "UD_AH_OFFSET", offsetof(SEND_WR, "wr.ud.ah"));
        m.put(s + "UD_REMOTE_QPN_OFFSET", offsetof(SEND_WR, "wr.ud.remote_qpn"));
        m.put(s + "UD_REMOTE_QKEY_OFFSET", offsetof(SEND_WR, "wr.ud.remote_qkey"));
        m.put(s + "SGE_SIZE", "sizeof(" + SGE + ")");
        m.put(s + "SGE_ADDR_OFFSET", offsetof(SGE, "addr"));
        m.put(s + "SGE_LENGTH_OFFSET", offsetof(SGE, "length"));
        m.put(s + "SGE_LKEY_OFFSET", offsetof(SGE, "lkey"));

        String r = "ReceiveRequests.";
        m.put(r + "WR_SIZE", "sizeof(" + RECV_WR + ")");
        m.put(r + "WR_ID_OFFSET", offsetof(RECV_WR, "wr_id"));
        m.put(r + "NEXT_OFFSET", offsetof(RECV_WR, "next"));
        m.put(r + "SG_LIST_OFFSET", offsetof(RECV_WR, "sg_list"));
        m.put(r + "NUM_SGE_OFFSET", offsetof(RECV_WR, "num_sge"));

        String w = "WorkCompletions.";
        m.put(w + "WC_SIZE", "sizeof(" + WC + ")");
        m.put(w + "WR_ID_OFFSET", offsetof(WC, "wr_id"));
        m.put(w + "STATUS_OFFSET", offsetof(WC, "status"));
        m.put(w + "OPCODE_OFFSET", offsetof(WC, "opcode"));
        m.put(w + "VENDOR_ERR_OFFSET", offsetof(WC, "vendor_err"));
        m.put(w + "BYTE_LEN_OFFSET", offsetof(WC, "byte_len"));
        m.put(w + "IMM_DATA_OFFSET", offsetof(WC, "imm_data"));
        m.put(w + "QP_NUM_OFFSET", offsetof(WC, "qp_num"));
        m.put(w + "SRC_QP_OFFSET", offsetof(WC, "src_qp"));
        m.put(w + "WC_FLAGS_OFFSET", offsetof(WC, "wc_flags"));
        m.put(w + "PKEY_INDEX_OFFSET", offsetof(WC, "pkey_index"));
        m.put(w + "SLID_OFFSET", offsetof(WC, "slid"));
        m.put(w + "SL_OFFSET", offsetof(WC, "sl"));
        m.put(w + "DLID_PATH_BITS_OFFSET", offsetof(WC, "dlid_path_bits"));
        return m;
    }

    /**
     * Field widths the flyweights rely on: {@code sizeof(member)} → bytes the Java code reads or writes there
     * (putLong/getLong 8, putInt/getInt 4, getUShort 2, getUByte 1).
     */
    static Map<String, Integer> widths() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(member(SEND_WR, "wr_id"), 8);
        m.put(member(SEND_WR, "next"), 8);
        m.put(member(SEND_WR, "sg_list"), 8);
        m.put(member(SEND_WR, "num_sge"), 4);
        m.put(member(SEND_WR, "opcode"), 4);
        m.put(member(SEND_WR, "send_flags"), 4);
        m.put(member(SEND_WR, "imm_data"), 4);
        m.put(member(SEND_WR, "wr.rdma.remote_addr"), 8);
        m.put(member(SEND_WR, "wr.rdma.rkey"), 4);
        m.put(member(SEND_WR, "wr.atomic.remote_addr"), 8);
        m.put(member(SEND_WR, "wr.atomic.compare_add"), 8);
        m.put(member(SEND_WR, "wr.atomic.swap"), 8);
        m.put(member(SEND_WR, "wr.atomic.rkey"), 4);
        m.put(member(SEND_WR, "wr.ud.ah"), 8);
        m.put(member(SEND_WR, "wr.ud.remote_qpn"), 4);
        m.put(member(SEND_WR, "wr.ud.remote_qkey"), 4);
        m.put(member(SGE, "addr"), 8);
        m.put(member(SGE, "length"), 4);
        m.put(member(SGE, "lkey"), 4);
        m.put(member(RECV_WR, "wr_id"), 8);
        m.put(member(RECV_WR, "next"), 8);
        m.put(member(RECV_WR, "sg_list"), 8);
        m.put(member(RECV_WR, "num_sge"), 4);
        m.put(member(WC, "wr_id"), 8);
        m.put(member(WC, "status"), 4);
        m.put(member(WC, "opcode"), 4);
        m.put(member(WC, "vendor_err"), 4);
        m.put(member(WC, "byte_len"), 4);
        m.put(member(WC, "imm_data"), 4);
        m.put(member(WC, "qp_num"), 4);
        m.put(member(WC, "src_qp"), 4);
        m.put(member(WC, "wc_flags"), 4);
        m.put(member(WC, "pkey_index"), 2);
        m.put(member(WC, "slid"), 2);
        m.put(member(WC, "sl"), 1);
        m.put(member(WC, "dlid_path_bits"), 1);
        return m;
    }

    private static String offsetof(String struct, String field) {
        return "offsetof(" + struct + ", " + field + ")";
    }

    private static String member(String struct, String field) {
        return "sizeof(((" + struct + " *) 0)->" + field + ")";
    }

    @Test
    void everyOffsetAndSizeMatchesTheInstalledHeaders() throws IOException {
        Map<String, String> offsets = offsets();
        Map<String, Integer> widths = widths();
        // one probe line per check: "o <key> <value>" for constants, "w <index> <value>" for widths
        List<String> widthExprs = new ArrayList<>(widths.keySet());
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n"
                + "#include <infiniband/verbs.h>\nint main(void) {\n");
        for (Map.Entry<String, String> e : offsets.entrySet()) {
            c.append("    printf(\"o %s %zu\\n\", \"").append(e.getKey()).append("\", (size_t) (")
                    .append(e.getValue()).append("));\n");
        }
        for (int i = 0; i < widthExprs.size(); i++) {
            c.append("    printf(\"w ").append(i).append(" %zu\\n\", (size_t) (").append(widthExprs.get(i)).append("));\n");
        }
        c.append("    return 0;\n}\n");
        Path dir = Files.createTempDirectory("verbs4j-api-layout");
        Path src = dir.resolve("api_layout.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("api_layout");
        Lab.run("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString());
        String out = Lab.run(exe.toString());

        List<String> wrong = new ArrayList<>();
        int offsetsChecked = 0;
        int widthsChecked = 0;
        for (String line : out.split("\n")) {
            String[] kv = line.trim().split(" ");
            if (kv.length != 3) {
                continue;
            }
            long theirs = Long.parseLong(kv[2]);
            if (kv[0].equals("o")) {
                offsetsChecked++;
                int ours = constant(kv[1]);
                if (ours != theirs) {
                    wrong.add(kv[1] + ": verbs-api says " + ours + ", the headers say " + theirs + " (" + offsets.get(kv[1]) + ")");
                }
            } else if (kv[0].equals("w")) {
                widthsChecked++;
                String expr = widthExprs.get(Integer.parseInt(kv[1]));
                int ours = widths.get(expr);
                if (ours != theirs) {
                    wrong.add(expr + " is " + theirs + " bytes, but verbs-api accesses " + ours);
                }
            }
        }
        assertEquals(offsets.size(), offsetsChecked, "the probe printed fewer offsets than asked:\n" + out);
        assertEquals(widths.size(), widthsChecked, "the probe printed fewer widths than asked:\n" + out);
        assertTrue(wrong.isEmpty(), "verbs-api disagrees with the installed headers:\n" + String.join("\n", wrong));
    }

    /** A constant added to a flyweight without a C expression here would go unproven: fail instead. */
    @Test
    void everyConstantIsCovered() {
        Map<String, String> offsets = offsets();
        int n = 0;
        for (Class<?> k : List.of(SendRequests.class, ReceiveRequests.class, WorkCompletions.class)) {
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (Modifier.isStatic(mod) && Modifier.isPublic(mod) && f.getType() == int.class) {
                    n++;
                    String key = k.getSimpleName() + "." + f.getName();
                    assertTrue(offsets.containsKey(key), "no C expression for " + key);
                }
            }
        }
        assertEquals(offsets.size(), n, "expressions for constants that no longer exist: " + offsets.keySet());
    }

    private static int constant(String key) {
        String[] parts = key.split("\\.");
        Class<?> k = switch (parts[0]) {
            case "SendRequests" -> SendRequests.class;
            case "ReceiveRequests" -> ReceiveRequests.class;
            case "WorkCompletions" -> WorkCompletions.class;
            default -> throw new AssertionError("unknown class in " + key);
        };
        try {
            return k.getField(parts[1]).getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(key + ": " + e, e);
        }
    }
}
