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

/**
 * Proves every offset and size in {@link Layout} against the installed rdma-core headers: generates a
 * C program that prints {@code offsetof}/{@code sizeof} for each, compiles it with gcc, runs it, and
 * compares. A wrong offset would silently corrupt memory, so this runs in the lab on every build.
 */
class LayoutIT {

    /** Layout constant name prefix → the C expression that yields its value. */
    static Map<String, String> expectations() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Field f : Layout.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) {
                continue;
            }
            String c = cExpression(f.getName());
            if (c != null) {
                m.put(f.getName(), c);
            }
        }
        return m;
    }

    private static final String[][] PREFIXES = {
        {"DEVICE_ATTR_SIZE", "sizeof(struct ibv_device_attr)"},
        {"PORT_ATTR_SIZE", "sizeof(struct ibv_port_attr)"},
        {"GID_ENTRY_SIZE", "sizeof(struct ibv_gid_entry)"},
        {"VERBS_CONTEXT_SIZE", "sizeof(struct verbs_context)"},
        {"DEVICE_NAME_MAX", "sizeof(((struct ibv_device *)0)->name)"},
        {"DA_FW_VER_LEN", "sizeof(((struct ibv_device_attr *)0)->fw_ver)"},
        {"QP_INIT_ATTR_SIZE", "sizeof(struct ibv_qp_init_attr)"},
        {"QP_CAP_SIZE", "sizeof(struct ibv_qp_cap)"},
        {"QP_ATTR_SIZE", "sizeof(struct ibv_qp_attr)"},
        {"AH_ATTR_SIZE", "sizeof(struct ibv_ah_attr)"},
        {"SRQ_INIT_ATTR_SIZE", "sizeof(struct ibv_srq_init_attr)"},
        {"SRQ_ATTR_SIZE", "sizeof(struct ibv_srq_attr)"},
        {"ASYNC_EVENT_SIZE", "sizeof(struct ibv_async_event)"},
        {"DEVICE_", "struct ibv_device"},
        {"PD_", "struct ibv_pd"},
        {"MR_", "struct ibv_mr"},
        {"COMP_CHANNEL_", "struct ibv_comp_channel"},
        {"CQ_", "struct ibv_cq"},
        {"QP_", "struct ibv_qp"},
        {"SRQ_", "struct ibv_srq"},
        {"QIA_", "struct ibv_qp_init_attr"},
        {"QC_", "struct ibv_qp_cap"},
        {"QA_", "struct ibv_qp_attr"},
        {"AA_", "struct ibv_ah_attr"},
        {"GR_", "struct ibv_global_route"},
        {"SIA_", "struct ibv_srq_init_attr"},
        {"SA_", "struct ibv_srq_attr"},
        {"AE_", "struct ibv_async_event"},
        {"CONTEXT_", "struct ibv_context"},
        {"OPS_", "struct ibv_context_ops"},
        {"VERBS_CONTEXT_", "struct verbs_context"},
        {"DA_", "struct ibv_device_attr"},
        {"PA_", "struct ibv_port_attr"},
        {"GE_", "struct ibv_gid_entry"},
    };

    static String cExpression(String constant) {
        for (String[] p : PREFIXES) {
            if (p[1].startsWith("sizeof")) {
                if (constant.equals(p[0])) {
                    return p[1];
                }
                continue;
            }
            if (constant.startsWith(p[0])) {
                String field = constant.substring(p[0].length()).toLowerCase();
                return "offsetof(" + p[1] + ", " + field + ")";
            }
        }
        return null;
    }

    /** {@link LibRdmacm}'s constants (offsets, sizes and values) → the C expression, from rdma/rdma_cma.h. */
    static Map<String, String> rdmacmExpectations() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Field f : LibRdmacm.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) {
                continue;
            }
            String c = rdmacmExpression(f.getName());
            if (c != null) {
                m.put(f.getName(), c);
            }
        }
        return m;
    }

    private static final String[][] RDMACM_PREFIXES = {
        {"CONN_PARAM_SIZE", "sizeof(struct rdma_conn_param)"},
        {"UD_PARAM_SIZE", "sizeof(struct rdma_ud_param)"},
        {"RDMA_", null}, // values: the constant's own name in C
        {"ID_", "struct rdma_cm_id"},
        {"EVENT_", "struct rdma_cm_event"},
        {"CP_", "struct rdma_conn_param"},
        {"UD_", "struct rdma_ud_param"},
        {"CHANNEL_", "struct rdma_event_channel"},
    };

    static String rdmacmExpression(String constant) {
        for (String[] p : RDMACM_PREFIXES) {
            if (p[1] != null && p[1].startsWith("sizeof")) {
                if (constant.equals(p[0])) {
                    return p[1];
                }
                continue;
            }
            if (constant.startsWith(p[0])) {
                return p[1] == null ? constant
                        : "offsetof(" + p[1] + ", " + constant.substring(p[0].length()).toLowerCase() + ")";
            }
        }
        return null;
    }

    @Test
    void everyOffsetMatchesTheInstalledHeaders() throws IOException {
        Map<String, String> exp = expectations();
        assertTrue(exp.size() > 140, "only " + exp.size() + " constants found in Layout");
        probe(exp, "#include <infiniband/verbs.h>\n", "Layout", LayoutIT::constant);
    }

    @Test
    void everyLibrdmacmOffsetAndValueMatchesTheInstalledHeaders() throws IOException {
        Map<String, String> exp = rdmacmExpectations();
        // the UD event parameters lie in the same union as the connection parameters
        exp.put("EVENT_PARAM", "offsetof(struct rdma_cm_event, param.ud)");
        assertTrue(exp.size() > 30, "only " + exp.size() + " constants found in LibRdmacm");
        probe(exp, "#include <rdma/rdma_cma.h>\n", "LibRdmacm", LayoutIT::rdmacmConstant);
        assertEquals("offsetof(struct rdma_cm_event, param)", rdmacmExpression("EVENT_PARAM"));
    }

    private static void probe(Map<String, String> exp, String include, String className,
            java.util.function.ToIntFunction<String> ours) throws IOException {
        Path dir = Files.createTempDirectory("verbs4j-layout");
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n" + include
                + "int main(void) {\n");
        for (Map.Entry<String, String> e : exp.entrySet()) {
            c.append("    printf(\"%s %zu\\n\", \"").append(e.getKey()).append("\", (size_t) (")
                    .append(e.getValue()).append("));\n");
        }
        c.append("    return 0;\n}\n");
        Path src = dir.resolve("layout.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("layout");
        Lab.run("gcc", "-o", exe.toString(), src.toString());
        String out = Lab.run(exe.toString());
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (String line : out.split("\n")) {
            String[] kv = line.trim().split(" ");
            if (kv.length != 2) {
                continue;
            }
            int mine = ours.applyAsInt(kv[0]);
            long theirs = Long.parseLong(kv[1]);
            checked++;
            if (mine != theirs) {
                wrong.add(kv[0] + ": " + className + " says " + mine + ", the headers say " + theirs + " ("
                        + exp.get(kv[0]) + ")");
            }
        }
        assertEquals(exp.size(), checked, "the probe printed fewer values than asked:\n" + out);
        assertTrue(wrong.isEmpty(), className + " disagrees with the installed headers:\n" + String.join("\n", wrong));
    }

    @Test
    void everyConstantIsCovered() {
        for (Field f : Layout.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                assertTrue(cExpression(f.getName()) != null, "no C expression for Layout." + f.getName());
            }
        }
    }

    @Test
    void everyLibrdmacmConstantIsCovered() {
        for (Field f : LibRdmacm.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                assertTrue(rdmacmExpression(f.getName()) != null, "no C expression for LibRdmacm." + f.getName());
            }
        }
    }

    private static int rdmacmConstant(String name) {
        try {
            Field f = LibRdmacm.class.getDeclaredField(name);
            f.setAccessible(true);
            return f.getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static int constant(String name) {
        try {
            return Layout.class.getField(name).getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
