package org.gpuoperator.node.cdi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * A {@link CdiSpec} as the CDI spec file: YAML out (absent fields left out), YAML or JSON in (JSON
 * is read as YAML, as the CDI library reads both). Pure.
 */
public final class CdiYaml {

    private CdiYaml() {}

    /** The spec as a YAML document, in the CDI spec's field order. */
    public static String render(CdiSpec spec) {
        DumperOptions o = new DumperOptions();
        o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        o.setIndent(2);
        o.setWidth(200);
        return new Yaml(new Representer(o), o).dump(toMap(spec));
    }

    /** The spec as plain maps and lists (what the YAML and JSON files hold). */
    public static Map<String, Object> toMap(CdiSpec spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cdiVersion", spec.cdiVersion());
        m.put("kind", spec.kind());
        if (!spec.annotations().isEmpty()) {
            m.put("annotations", new LinkedHashMap<>(spec.annotations()));
        }
        List<Object> devices = new ArrayList<>();
        for (CdiSpec.Device d : spec.devices()) {
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("name", d.name());
            if (!d.annotations().isEmpty()) {
                dm.put("annotations", new LinkedHashMap<>(d.annotations()));
            }
            dm.put("containerEdits", edits(d.containerEdits()));
            devices.add(dm);
        }
        m.put("devices", devices);
        if (!spec.containerEdits().isEmpty()) {
            m.put("containerEdits", edits(spec.containerEdits()));
        }
        return m;
    }

    private static Map<String, Object> edits(CdiSpec.ContainerEdits e) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!e.env().isEmpty()) {
            m.put("env", new ArrayList<>(e.env()));
        }
        if (!e.deviceNodes().isEmpty()) {
            List<Object> nodes = new ArrayList<>();
            for (CdiSpec.DeviceNode n : e.deviceNodes()) {
                Map<String, Object> nm = new LinkedHashMap<>();
                nm.put("path", n.path());
                putIfSet(nm, "hostPath", n.hostPath());
                putIfSet(nm, "type", n.type());
                putIfSet(nm, "major", n.major());
                putIfSet(nm, "minor", n.minor());
                putIfSet(nm, "permissions", n.permissions());
                putIfSet(nm, "uid", n.uid());
                putIfSet(nm, "gid", n.gid());
                nodes.add(nm);
            }
            m.put("deviceNodes", nodes);
        }
        if (!e.mounts().isEmpty()) {
            List<Object> mounts = new ArrayList<>();
            for (CdiSpec.Mount mt : e.mounts()) {
                Map<String, Object> mm = new LinkedHashMap<>();
                mm.put("hostPath", mt.hostPath());
                mm.put("containerPath", mt.containerPath());
                putIfSet(mm, "type", mt.type());
                if (!mt.options().isEmpty()) {
                    mm.put("options", new ArrayList<>(mt.options()));
                }
                mounts.add(mm);
            }
            m.put("mounts", mounts);
        }
        if (!e.hooks().isEmpty()) {
            List<Object> hooks = new ArrayList<>();
            for (CdiSpec.Hook h : e.hooks()) {
                Map<String, Object> hm = new LinkedHashMap<>();
                hm.put("hookName", h.hookName());
                hm.put("path", h.path());
                if (!h.args().isEmpty()) {
                    hm.put("args", new ArrayList<>(h.args()));
                }
                if (!h.env().isEmpty()) {
                    hm.put("env", new ArrayList<>(h.env()));
                }
                putIfSet(hm, "timeout", h.timeout());
                hooks.add(hm);
            }
            m.put("hooks", hooks);
        }
        if (!e.additionalGids().isEmpty()) {
            m.put("additionalGids", new ArrayList<>(e.additionalGids()));
        }
        return m;
    }

    private static void putIfSet(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    /**
     * Parses a spec file's text (YAML or JSON).
     *
     * @param source names the file in errors
     * @throws CdiException naming {@code source} and the field when the text is not a CDI spec
     */
    public static CdiSpec parse(String text, String source) throws CdiException {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (YAMLException e) {
            throw new CdiException(source + ": not YAML or JSON: " + e.getMessage(), e);
        }
        Fields f = new Fields(source);
        Map<String, Object> m = f.map(root, "");
        String version = f.requiredString(m, "cdiVersion", "");
        String kind = f.requiredString(m, "kind", "");
        Object devs = m.get("devices");
        if (devs == null) {
            throw new CdiException(source + ": devices: required");
        }
        List<Object> list = f.list(devs, "devices");
        List<CdiSpec.Device> devices = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String at = "devices[" + i + "]";
            Map<String, Object> d = f.map(list.get(i), at);
            devices.add(
                    new CdiSpec.Device(
                            f.requiredString(d, "name", at),
                            f.stringMap(d.get("annotations"), at + ".annotations"),
                            f.edits(d.get("containerEdits"), at + ".containerEdits")));
        }
        return new CdiSpec(
                version,
                kind,
                f.stringMap(m.get("annotations"), "annotations"),
                devices,
                f.edits(m.get("containerEdits"), "containerEdits"));
    }

    /** Field readers that name the file and the field in their errors. */
    private record Fields(String source) {

        CdiException error(String at, String what) {
            return new CdiException(source + ": " + (at.isEmpty() ? "" : at + ": ") + what);
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> map(Object v, String at) throws CdiException {
            if (v instanceof Map<?, ?> m) {
                return (Map<String, Object>) m;
            }
            throw error(at, "expected an object, got " + describe(v));
        }

        @SuppressWarnings("unchecked")
        List<Object> list(Object v, String at) throws CdiException {
            if (v == null) {
                return List.of();
            }
            if (v instanceof List<?> l) {
                return (List<Object>) l;
            }
            throw error(at, "expected a list, got " + describe(v));
        }

        String requiredString(Map<String, Object> m, String key, String at) throws CdiException {
            String s = string(m.get(key), join(at, key));
            if (s == null || s.isEmpty()) {
                throw error(join(at, key), "required");
            }
            return s;
        }

        String string(Object v, String at) throws CdiException {
            if (v == null || v instanceof String) {
                return (String) v;
            }
            throw error(at, "expected a string, got " + describe(v));
        }

        Long number(Object v, String at) throws CdiException {
            if (v == null) {
                return null;
            }
            if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)) {
                return n.longValue();
            }
            throw error(at, "expected an integer, got " + describe(v));
        }

        List<String> strings(Object v, String at) throws CdiException {
            List<String> out = new ArrayList<>();
            List<Object> l = list(v, at);
            for (int i = 0; i < l.size(); i++) {
                out.add(string(l.get(i), at + "[" + i + "]"));
            }
            return out;
        }

        Map<String, String> stringMap(Object v, String at) throws CdiException {
            if (v == null) {
                return Map.of();
            }
            Map<String, String> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : map(v, at).entrySet()) {
                out.put(String.valueOf(e.getKey()), string(e.getValue(), at + "." + e.getKey()));
            }
            return out;
        }

        CdiSpec.ContainerEdits edits(Object v, String at) throws CdiException {
            if (v == null) {
                return CdiSpec.ContainerEdits.EMPTY;
            }
            Map<String, Object> m = map(v, at);
            List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
            List<Object> nl = list(m.get("deviceNodes"), at + ".deviceNodes");
            for (int i = 0; i < nl.size(); i++) {
                String a = at + ".deviceNodes[" + i + "]";
                Map<String, Object> n = map(nl.get(i), a);
                nodes.add(
                        new CdiSpec.DeviceNode(
                                requiredString(n, "path", a),
                                string(n.get("hostPath"), a + ".hostPath"),
                                string(n.get("type"), a + ".type"),
                                number(n.get("major"), a + ".major"),
                                number(n.get("minor"), a + ".minor"),
                                string(n.get("permissions"), a + ".permissions"),
                                number(n.get("uid"), a + ".uid"),
                                number(n.get("gid"), a + ".gid")));
            }
            List<CdiSpec.Mount> mounts = new ArrayList<>();
            List<Object> ml = list(m.get("mounts"), at + ".mounts");
            for (int i = 0; i < ml.size(); i++) {
                String a = at + ".mounts[" + i + "]";
                Map<String, Object> mt = map(ml.get(i), a);
                mounts.add(
                        new CdiSpec.Mount(
                                requiredString(mt, "hostPath", a),
                                requiredString(mt, "containerPath", a),
                                string(mt.get("type"), a + ".type"),
                                strings(mt.get("options"), a + ".options")));
            }
            List<CdiSpec.Hook> hooks = new ArrayList<>();
            List<Object> hl = list(m.get("hooks"), at + ".hooks");
            for (int i = 0; i < hl.size(); i++) {
                String a = at + ".hooks[" + i + "]";
                Map<String, Object> h = map(hl.get(i), a);
                hooks.add(
                        new CdiSpec.Hook(
                                requiredString(h, "hookName", a),
                                requiredString(h, "path", a),
                                strings(h.get("args"), a + ".args"),
                                strings(h.get("env"), a + ".env"),
                                number(h.get("timeout"), a + ".timeout")));
            }
            List<Long> gids = new ArrayList<>();
            List<Object> gl = list(m.get("additionalGids"), at + ".additionalGids");
            for (int i = 0; i < gl.size(); i++) {
                gids.add(number(gl.get(i), at + ".additionalGids[" + i + "]"));
            }
            return new CdiSpec.ContainerEdits(
                    strings(m.get("env"), at + ".env"), nodes, mounts, hooks, gids);
        }

        private static String join(String at, String key) {
            return at.isEmpty() ? key : at + "." + key;
        }

        private static String describe(Object v) {
            return v == null ? "nothing" : v.getClass().getSimpleName() + " " + v;
        }
    }
}
