package org.gpuoperator.toolkit.containerd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.gpuoperator.toolkit.toml.TomlEdits;
import org.gpuoperator.toolkit.toml.TomlLayout;
import org.gpuoperator.toolkit.toml.TomlText;
import org.tomlj.TomlArray;
import org.tomlj.TomlParseResult;
import org.tomlj.TomlTable;

/**
 * The containerd config as it should be: pure functions from the current text to the new text. Our
 * runtime tables are appended as text between two marker comments; the only other edits are {@code
 * default_runtime_name} (when asked) and {@code imports} (drop-in mode), each changed in place.
 * Nothing else in the file changes.
 */
public final class ContainerdConfig {

    public static final String BEGIN =
            "# BEGIN toolkit-agent: nvidia runtimes, removed by `toolkit-agent cleanup`";
    public static final String END = "# END toolkit-agent";
    public static final String DEFAULT_RUNTIME_TYPE = "io.containerd.runc.v2";

    /** The CDI spec directories containerd's CRI reads (its own default, made explicit). */
    public static final List<String> CDI_SPEC_DIRS = List.of("/etc/cdi", "/var/run/cdi");

    /** The CRI plugin's CDI keys (containerd 1.7 and later), in the order they are written. */
    public static final List<String> CDI_KEYS = List.of("enable_cdi", "cdi_spec_dirs");

    /**
     * CDI in the CRI plugin.
     *
     * @param inCri write {@code enable_cdi = true} and {@code cdi_spec_dirs} (containerd >= 1.7)
     * @param annotationPrefixes with CDI on, {@code <prefix>*} goes into our runtimes' {@code
     *     container_annotations}, so the CRI passes the device plugin's CDI annotations to the
     *     {@code nvidia} runtime (how CDI reaches it where the CRI has no CDI, before 1.7)
     * @param undo what a previous run did to the CDI keys of the main file ({@link
     *     Result#cdiFacts}), undone first
     */
    public record Cdi(boolean inCri, List<String> annotationPrefixes, Map<String, String> undo) {
        public Cdi {
            annotationPrefixes = List.copyOf(annotationPrefixes);
            undo = Map.copyOf(undo);
        }

        public static final Cdi NONE = new Cdi(false, List.of(), Map.of());
    }

    /** The fact key that remembers what we did to a CDI key of the CRI table. */
    public static String cdiFactKey(String key) {
        return "cdi." + key;
    }

    // what we did to one CDI key in place: nothing, added it, or replaced this raw value
    static final String CDI_UNTOUCHED = "none";
    static final String CDI_ADDED = "added";
    static final String CDI_WAS = "was:";

    /**
     * Marks a Go template line of a k3s/RKE2 template as a comment while we edit, so line numbers
     * stay.
     */
    static final String TEMPLATE_MASK = "#toolkit-agent-template#";

    private ContainerdConfig() {}

    /**
     * The version of a config file as containerd reads it: no keys → {@code whenEmpty}; no {@code
     * version} → 1.
     */
    public static int detectVersion(String source, TomlParseResult parsed, int whenEmpty)
            throws ConfigException {
        if (parsed.isEmpty()) {
            return whenEmpty;
        }
        Object v = parsed.get(List.of("version"));
        if (v == null) {
            return 1;
        }
        if (!(v instanceof Long l) || l < 1 || l > 3) {
            throw new ConfigException(
                    source
                            + ": unsupported value for the version field: "
                            + v
                            + " (expected 1, 2 or 3)");
        }
        return l.intValue();
    }

    /** The CRI plugin's table for a config version. */
    public static List<String> criPath(int version) {
        return switch (version) {
            case 1 -> List.of("plugins", "cri");
            case 2 -> List.of("plugins", "io.containerd.grpc.v1.cri");
            default -> List.of("plugins", "io.containerd.cri.v1.runtime");
        };
    }

    public static List<String> runtimesPath(int version) {
        return append(criPath(version), "containerd", "runtimes");
    }

    public static List<String> defaultRuntimeKey(int version) {
        return append(criPath(version), "containerd", "default_runtime_name");
    }

    /**
     * What we need to know about one config file to edit it.
     *
     * @param source file name for messages
     * @param text the file's text ("" when absent)
     * @param template a k3s/RKE2 Go template ({@code config.toml.tmpl}, {@code
     *     config-v3.toml.tmpl})
     */
    public record Input(String source, String text, boolean template) {}

    /**
     * The result of configure.
     *
     * @param mainText the new text of the main file
     * @param dropInText the drop-in's text in drop-in mode
     * @param version the config version edited
     * @param previousDefault {@code default_runtime_name} before we touched it (empty: the key was
     *     absent)
     * @param importAdded the {@code imports} entry we added, if any
     * @param cdiFacts per CDI key ({@link #cdiFactKey}): what we did to it in the main file, for
     *     the next run and for removal
     */
    public record Result(
            String mainText,
            Optional<String> dropInText,
            int version,
            Optional<String> previousDefault,
            Optional<String> importAdded,
            Map<String, String> cdiFacts) {}

    /**
     * Adds our runtimes.
     *
     * @param in the main file (or template)
     * @param dump {@code containerd config dump} output, the fallback source of runc's options
     * @param versionOverride the version implied by the file name (k3s templates), if any
     * @param dropInHostPath the drop-in's path on the host in drop-in mode; empty: edit the main
     *     file
     * @param rememberedDefault the default from before our first run, when the file already says
     *     "nvidia"
     */
    public static Result configure(
            Input in,
            Optional<String> dump,
            NvidiaRuntimes runtimes,
            Optional<Integer> versionOverride,
            Optional<String> dropInHostPath,
            Optional<String> rememberedDefault)
            throws ConfigException {
        return configure(
                in, dump, runtimes, versionOverride, dropInHostPath, rememberedDefault, Cdi.NONE);
    }

    /**
     * Adds our runtimes and, with {@code cdi.inCri()}, the CRI plugin's CDI keys: in the drop-in in
     * drop-in mode; else in place where the file has the CRI table (the old values remembered in
     * {@link Result#cdiFacts}), or in our block where it has none.
     */
    public static Result configure(
            Input in,
            Optional<String> dump,
            NvidiaRuntimes runtimes,
            Optional<Integer> versionOverride,
            Optional<String> dropInHostPath,
            Optional<String> rememberedDefault,
            Cdi cdi)
            throws ConfigException {
        return configure(
                in, dump, runtimes, versionOverride, dropInHostPath, rememberedDefault, cdi, false);
    }

    /**
     * As above; with {@code wholeCriTable} the drop-in carries the main file's whole CRI plugin
     * table with our edits, since containerd 1.x replaces a plugin's table with an imported one
     * (1.6.20's {@code config dump} shows the main file's CRI keys gone otherwise).
     */
    public static Result configure(
            Input in,
            Optional<String> dump,
            NvidiaRuntimes runtimes,
            Optional<Integer> versionOverride,
            Optional<String> dropInHostPath,
            Optional<String> rememberedDefault,
            Cdi cdi,
            boolean wholeCriTable)
            throws ConfigException {
        String text = mask(in);
        TomlParseResult parsed = TomlCheck.parse(in.source(), text);
        int version =
                versionOverride.isPresent()
                        ? versionOverride.get()
                        : detectVersion(in.source(), parsed, 2);
        checkCriEnabled(in.source(), parsed, version);

        String work = undoCdi(removeOurs(text, version, runtimes), version, cdi.undo());
        TomlParseResult base = TomlCheck.parse(in.source(), work);
        if (base.isEmpty() && !in.template()) {
            // Without a version key containerd reads the file as version 1 and would ignore our v2
            // tables.
            work = "version = " + version + "\n" + (work.isEmpty() ? "" : "\n" + work);
        }
        Optional<String> current =
                Optional.ofNullable(stringAt(in.source(), base, defaultRuntimeKey(version)));
        Optional<String> previousDefault =
                current.isPresent() && runtimes.isOurs(current.get()) ? rememberedDefault : current;

        List<Entry> template =
                templateEntries(work, base, version, previousDefault, dump, runtimes);
        String tables =
                runtimeTables(
                        version,
                        runtimes,
                        runtimes.cdi()
                                ? withAnnotations(template, cdi.annotationPrefixes())
                                : template);
        if (dropInHostPath.isEmpty()
                && !TomlLayout.scan(work).hasAnythingUnder(runtimesPath(version))) {
            // The file relies on containerd's built-in runtimes map. Declaring any runtime replaces
            // that map, which would
            // drop runc and leave default_runtime_name pointing at nothing (CRI plugin fails to
            // load, seen on 1.6.20):
            // so the default runtime comes along, copied from `config dump` when available.
            tables = builtInDefaultRuntime(version, previousDefault, dump) + tables;
        }

        if (dropInHostPath.isEmpty()) {
            // The default is edited before our block is appended, so our block always stays last
            // (idempotent bytes).
            if (runtimes.setAsDefault()) {
                work =
                        TomlEdits.set(
                                work, defaultRuntimeKey(version), TomlText.string(runtimes.name()));
            } else if (current.isPresent() && runtimes.isOurs(current.get())) {
                work = restoreDefault(work, version, previousDefault);
            }
            Map<String, String> facts = untouchedCdiFacts();
            if (cdi.inCri()) {
                if (criTableInFile(work, version)) {
                    TomlLayout layout = TomlLayout.scan(work);
                    String before = work;
                    for (String key : CDI_KEYS) {
                        facts.put(
                                cdiFactKey(key),
                                layout.key(append(criPath(version), key))
                                        .map(e -> CDI_WAS + rawValue(e, before))
                                        .orElse(CDI_ADDED));
                    }
                    work = setCdiKeys(work, version);
                } else {
                    tables = cdiTable(version) + tables;
                }
            }
            work = appendOurs(work, tables);
            String out = unmask(work);
            TomlCheck.parse(in.source() + " (as rewritten)", work);
            return new Result(
                    out, Optional.empty(), version, previousDefault, Optional.empty(), facts);
        }

        // The main file gets only an import; the drop-in holds our tables (containerd 2.x merges
        // key by key) or the whole CRI table with them (wholeCriTable, for 1.x).
        String glob = globFor(dropInHostPath.get());
        Optional<String> importAdded = Optional.empty();
        List<String> imports = stringList(base.get(List.of("imports")));
        if (!imports.contains(glob) && !imports.contains(dropInHostPath.get())) {
            List<String> withOurs = new ArrayList<>(imports);
            withOurs.add(glob);
            work = TomlEdits.set(work, List.of("imports"), renderStrings(withOurs));
            importAdded = Optional.of(glob);
        }
        if (current.isPresent() && runtimes.isOurs(current.get())) {
            work = restoreDefault(work, version, previousDefault);
        }
        StringBuilder dropIn =
                new StringBuilder()
                        .append(
                                "# Written by toolkit-agent: the nvidia runtimes. Deleted by `toolkit-agent cleanup`.\n")
                        .append("version = ")
                        .append(version)
                        .append("\n\n");
        if (wholeCriTable) {
            // the main file as it would be edited in place; its CRI table goes into the drop-in
            Result edited =
                    configure(
                            new Input(in.source(), unmask(work), false),
                            dump,
                            runtimes,
                            versionOverride,
                            Optional.empty(),
                            rememberedDefault,
                            new Cdi(cdi.inCri(), cdi.annotationPrefixes(), Map.of()),
                            false);
            TomlParseResult e = TomlCheck.parse(in.source() + " (as edited)", edited.mainText());
            renderTable(dropIn, criPath(version), e.getTable(criPath(version)));
            return dropInResult(
                    in, work, dropIn, dropInHostPath.get(), version, previousDefault, importAdded);
        }
        if (cdi.inCri()) {
            dropIn.append(cdiTable(version));
        }
        if (runtimes.setAsDefault()) {
            dropIn.append(TomlText.header(append(criPath(version), "containerd")))
                    .append('\n')
                    .append("  default_runtime_name = ")
                    .append(TomlText.string(runtimes.name()))
                    .append("\n\n");
        }
        dropIn.append(tables);
        return dropInResult(
                in, work, dropIn, dropInHostPath.get(), version, previousDefault, importAdded);
    }

    /** The main file with its import and the drop-in, both parse-checked. */
    private static Result dropInResult(
            Input in,
            String work,
            StringBuilder dropIn,
            String dropInHostPath,
            int version,
            Optional<String> previousDefault,
            Optional<String> importAdded)
            throws ConfigException {
        TomlCheck.parse(dropInHostPath + " (as written)", dropIn.toString());
        TomlCheck.parse(in.source() + " (as rewritten)", work);
        return new Result(
                unmask(work),
                Optional.of(dropIn.toString()),
                version,
                previousDefault,
                importAdded,
                untouchedCdiFacts());
    }

    /**
     * Removes our runtimes from a file someone else has changed since we wrote it: our tables,
     * {@code default_runtime_name} back to {@code previousDefault} when it still names ours, and
     * the import we added.
     */
    public static String unconfigure(
            Input in,
            NvidiaRuntimes runtimes,
            Optional<Integer> versionOverride,
            Optional<String> previousDefault,
            Optional<String> importAdded)
            throws ConfigException {
        return unconfigure(in, runtimes, versionOverride, previousDefault, importAdded, Map.of());
    }

    /** As above, and the CDI keys we set in place go back to what they were ({@code cdiUndo}). */
    public static String unconfigure(
            Input in,
            NvidiaRuntimes runtimes,
            Optional<Integer> versionOverride,
            Optional<String> previousDefault,
            Optional<String> importAdded,
            Map<String, String> cdiUndo)
            throws ConfigException {
        String text = mask(in);
        TomlParseResult parsed = TomlCheck.parse(in.source(), text);
        int version =
                versionOverride.isPresent()
                        ? versionOverride.get()
                        : detectVersion(in.source(), parsed, 2);
        String work = undoCdi(removeOurs(text, version, runtimes), version, cdiUndo);
        TomlParseResult base = TomlCheck.parse(in.source(), work);
        String current = stringAt(in.source(), base, defaultRuntimeKey(version));
        if (current != null && runtimes.isOurs(current)) {
            work = restoreDefault(work, version, previousDefault);
        }
        if (importAdded.isPresent()) {
            List<String> imports = new ArrayList<>(stringList(base.get(List.of("imports"))));
            if (imports.remove(importAdded.get())) {
                work =
                        imports.isEmpty()
                                ? TomlEdits.remove(work, List.of("imports"))
                                : TomlEdits.set(work, List.of("imports"), renderStrings(imports));
            }
        }
        TomlCheck.parse(in.source() + " (as rewritten)", work);
        return unmask(work);
    }

    /** Whether the text already holds our {@code nvidia} runtime. */
    public static boolean hasOurRuntime(
            Input in, Optional<Integer> versionOverride, NvidiaRuntimes runtimes)
            throws ConfigException {
        String text = mask(in);
        TomlParseResult parsed = TomlCheck.parse(in.source(), text);
        int version =
                versionOverride.isPresent()
                        ? versionOverride.get()
                        : detectVersion(in.source(), parsed, 2);
        return parsed.get(append(runtimesPath(version), runtimes.name())) != null;
    }

    /** The BinaryName of a runtime in a config text (e.g. a {@code config dump}), if present. */
    public static Optional<String> binaryName(String source, String text, String runtime)
            throws ConfigException {
        TomlParseResult parsed = TomlCheck.parse(source, text);
        int version = detectVersion(source, parsed, 2);
        Object v = parsed.get(append(runtimesPath(version), runtime, "options", "BinaryName"));
        return v instanceof String s ? Optional.of(s) : Optional.empty();
    }

    public static String globFor(String dropInHostPath) {
        int slash = dropInHostPath.lastIndexOf('/');
        return dropInHostPath.substring(0, slash + 1) + "*.toml";
    }

    // ---- internals ----

    /** A parsed table as headers and {@code key = value} lines, sub-tables after its own keys. */
    private static void renderTable(StringBuilder sb, List<String> path, TomlTable table) {
        sb.append(TomlText.header(path)).append('\n');
        List<String> subTables = new ArrayList<>();
        for (String k : table.keySet()) {
            Object v = table.get(List.of(k));
            if (v instanceof TomlTable) {
                subTables.add(k);
            } else {
                sb.append("  ")
                        .append(TomlText.key(k))
                        .append(" = ")
                        .append(TomlText.value(v))
                        .append('\n');
            }
        }
        for (String k : subTables) {
            sb.append('\n');
            renderTable(sb, append(path, k), table.getTable(List.of(k)));
        }
    }

    private static Map<String, String> untouchedCdiFacts() {
        Map<String, String> facts = new LinkedHashMap<>();
        CDI_KEYS.forEach(k -> facts.put(cdiFactKey(k), CDI_UNTOUCHED));
        return facts;
    }

    private static String rawValue(TomlLayout.Entry e, String text) {
        return text.substring(e.valueStart(), e.valueEnd());
    }

    /**
     * Whether the file itself has the CRI table (a header, or keys of its own), so our keys can go
     * into it; TOML allows no second header for it.
     */
    private static boolean criTableInFile(String text, int version) {
        List<String> cri = criPath(version);
        TomlLayout layout = TomlLayout.scan(text);
        return layout.table(cri).isPresent()
                || layout.keysUnder(cri).stream().anyMatch(e -> e.tablePath().size() <= cri.size());
    }

    private static String setCdiKeys(String text, int version) {
        String work = TomlEdits.set(text, append(criPath(version), "enable_cdi"), "true");
        return TomlEdits.set(
                work, append(criPath(version), "cdi_spec_dirs"), renderStrings(CDI_SPEC_DIRS));
    }

    /** The CRI table with only the CDI keys, for our block or the drop-in. */
    private static String cdiTable(int version) {
        return TomlText.header(criPath(version))
                + "\n  enable_cdi = true\n  cdi_spec_dirs = "
                + renderStrings(CDI_SPEC_DIRS)
                + "\n\n";
    }

    /** Puts back the CDI keys a previous run set in place: removed if added, else the old value. */
    private static String undoCdi(String text, int version, Map<String, String> undo) {
        String work = text;
        for (String key : CDI_KEYS) {
            String fact = undo.getOrDefault(cdiFactKey(key), CDI_UNTOUCHED);
            List<String> path = append(criPath(version), key);
            if (fact.equals(CDI_ADDED)) {
                work = TomlEdits.remove(work, path);
            } else if (fact.startsWith(CDI_WAS)) {
                work = TomlEdits.set(work, path, fact.substring(CDI_WAS.length()));
            }
        }
        return work;
    }

    /**
     * The template's entries with {@code <prefix>*} in front of its {@code container_annotations}
     * (added when it has none), as upstream's toolkit does for its CDI annotation prefixes.
     */
    static List<Entry> withAnnotations(List<Entry> template, List<String> prefixes)
            throws ConfigException {
        if (prefixes.isEmpty()) {
            return template;
        }
        List<Entry> out = new ArrayList<>();
        List<String> existing = List.of();
        for (Entry e : template) {
            if (e.rel().equals(List.of("container_annotations"))) {
                existing =
                        stringList(
                                TomlCheck.parse("container_annotations", "v = " + e.raw())
                                        .get(List.of("v")));
            } else {
                out.add(e);
            }
        }
        List<String> annotations = new ArrayList<>();
        prefixes.forEach(p -> annotations.add(p + "*"));
        existing.stream().filter(a -> !annotations.contains(a)).forEach(annotations::add);
        out.add(new Entry(List.of("container_annotations"), renderStrings(annotations)));
        return out;
    }

    /** One copied key: its path below the runtime table and its value as TOML text. */
    record Entry(List<String> rel, String raw) {}

    private static String removeOurs(String text, int version, NvidiaRuntimes runtimes) {
        String work = removeMarkedBlock(text);
        for (String name : runtimes.allNames()) {
            work = TomlEdits.removeTree(work, append(runtimesPath(version), name));
        }
        return work;
    }

    private static String removeMarkedBlock(String text) {
        int b = text.indexOf(BEGIN);
        String out = TomlEdits.removeMarked(text, BEGIN, END);
        if (out.length() != text.length() && b >= 2 && text.startsWith("\n\n", b - 2)) {
            out =
                    out.substring(0, b - 1)
                            + out.substring(b); // the blank line we put before the block
        }
        return out;
    }

    private static String appendOurs(String text, String tables) {
        String block = BEGIN + "\n" + tables + END + "\n";
        if (text.isEmpty()) {
            return block;
        }
        return text + (text.endsWith("\n") ? "\n" : "\n\n") + block;
    }

    private static String restoreDefault(
            String work, int version, Optional<String> previousDefault) {
        return previousDefault.isPresent()
                ? TomlEdits.set(
                        work, defaultRuntimeKey(version), TomlText.string(previousDefault.get()))
                : TomlEdits.remove(work, defaultRuntimeKey(version));
    }

    private static void checkCriEnabled(String source, TomlParseResult parsed, int version)
            throws ConfigException {
        List<String> disabled = stringList(parsed.get(List.of("disabled_plugins")));
        String id = criPath(version).get(1);
        if (disabled.contains("cri")
                || disabled.contains(id)
                || disabled.contains("io.containerd.grpc.v1.cri")) {
            throw new ConfigException(
                    source
                            + ": the CRI plugin is disabled (disabled_plugins = "
                            + disabled
                            + "); Kubernetes cannot use containerd here, so an nvidia runtime would have no effect");
        }
    }

    /**
     * Options to copy: the current default runtime (unless it is ours), else runc, else crun; file
     * first, then dump.
     */
    private static List<Entry> templateEntries(
            String work,
            TomlParseResult parsed,
            int version,
            Optional<String> previousDefault,
            Optional<String> dump,
            NvidiaRuntimes runtimes)
            throws ConfigException {
        List<String> candidates = new ArrayList<>();
        previousDefault
                .filter(d -> !d.startsWith(NvidiaRuntimes.NVIDIA) && !runtimes.isOurs(d))
                .ifPresent(candidates::add);
        candidates.add("runc");
        candidates.add("crun");
        for (String c : candidates) {
            List<Entry> e = copy(work, append(runtimesPath(version), c));
            if (!e.isEmpty()) {
                return e;
            }
        }
        if (dump.isPresent()) {
            TomlParseResult d = TomlCheck.parse("containerd config dump", dump.get());
            int dv = detectVersion("containerd config dump", d, 2);
            for (String c : candidates) {
                List<Entry> e = copy(dump.get(), append(runtimesPath(dv), c));
                if (!e.isEmpty()) {
                    return e;
                }
            }
        }
        return List.of();
    }

    private static List<Entry> copy(String text, List<String> runtimePath) throws ConfigException {
        TomlLayout layout = TomlLayout.scan(text);
        List<Entry> out = new ArrayList<>();
        for (TomlLayout.Entry e : layout.keysUnder(runtimePath)) {
            List<String> rel = e.path().subList(runtimePath.size(), e.path().size());
            String raw = text.substring(e.valueStart(), e.valueEnd());
            if (raw.startsWith("{")) {
                TomlParseResult t = TomlCheck.parse("inline table", "v = " + raw);
                expand(rel, t.getTable("v"), out);
            } else {
                out.add(new Entry(List.copyOf(rel), raw));
            }
        }
        return out;
    }

    private static void expand(List<String> rel, TomlTable table, List<Entry> out) {
        for (String k : table.keySet()) {
            Object v = table.get(List.of(k));
            List<String> p = append(rel, k);
            if (v instanceof TomlTable t) {
                expand(p, t, out);
            } else {
                out.add(new Entry(p, TomlText.value(v)));
            }
        }
    }

    /**
     * The default runtime's table as {@code config dump} shows it (runc with plain defaults when no
     * dump).
     */
    private static String builtInDefaultRuntime(
            int version, Optional<String> previousDefault, Optional<String> dump)
            throws ConfigException {
        String name = previousDefault.orElse("runc");
        List<Entry> entries = List.of();
        if (dump.isPresent()) {
            TomlParseResult d = TomlCheck.parse("containerd config dump", dump.get());
            int dv = detectVersion("containerd config dump", d, 2);
            if (previousDefault.isEmpty()
                    && d.get(defaultRuntimeKey(dv)) instanceof String s
                    && !s.isEmpty()
                    && !s.startsWith(NvidiaRuntimes.NVIDIA)) {
                name = s;
            }
            entries = copy(dump.get(), append(runtimesPath(dv), name));
        }
        if (entries.isEmpty()) {
            entries =
                    List.of(
                            new Entry(
                                    List.of("runtime_type"),
                                    TomlText.string(DEFAULT_RUNTIME_TYPE)));
        }
        return renderRuntime(
                version, append(runtimesPath(version), name), entries, Optional.empty());
    }

    /**
     * Our runtime tables, as text: copied options, then {@code BinaryName} (and {@code Runtime} for
     * v1).
     */
    static String runtimeTables(int version, NvidiaRuntimes runtimes, List<Entry> template) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> rt : runtimes.binaries().entrySet()) {
            sb.append(
                    renderRuntime(
                            version,
                            append(runtimesPath(version), rt.getKey()),
                            template,
                            Optional.of(rt.getValue())));
        }
        return sb.toString();
    }

    /**
     * One runtime table: top-level keys, then each sub-table (options first); {@code binary}
     * replaces BinaryName.
     */
    private static String renderRuntime(
            int version, List<String> path, List<Entry> entries, Optional<String> binary) {
        StringBuilder sb = new StringBuilder();
        Map<String, List<Entry>> groups = new LinkedHashMap<>();
        if (binary.isPresent()) {
            groups.put("options", new ArrayList<>());
        }
        List<Entry> top = new ArrayList<>();
        for (Entry e : entries) {
            if (e.rel().size() == 1) {
                top.add(e);
            } else {
                groups.computeIfAbsent(e.rel().getFirst(), k -> new ArrayList<>()).add(e);
            }
        }
        sb.append(TomlText.header(path)).append('\n');
        boolean typed = false;
        for (Entry e : top) {
            String raw = e.raw();
            if (e.rel().getFirst().equals("runtime_type")) {
                typed = true;
                if (raw.equals("\"\"") || raw.equals("''")) {
                    raw = TomlText.string(DEFAULT_RUNTIME_TYPE);
                }
            }
            sb.append("  ")
                    .append(TomlText.key(e.rel().getFirst()))
                    .append(" = ")
                    .append(raw)
                    .append('\n');
        }
        if (!typed) {
            sb.append("  runtime_type = ")
                    .append(TomlText.string(DEFAULT_RUNTIME_TYPE))
                    .append('\n');
        }
        for (Map.Entry<String, List<Entry>> g : groups.entrySet()) {
            boolean options = g.getKey().equals("options");
            sb.append('\n')
                    .append("  ")
                    .append(TomlText.header(append(path, g.getKey())))
                    .append('\n');
            for (Entry e : g.getValue()) {
                List<String> sub = e.rel().subList(1, e.rel().size());
                if (binary.isPresent()
                        && options
                        && sub.size() == 1
                        && (sub.getFirst().equals("BinaryName")
                                || version == 1 && sub.getFirst().equals("Runtime"))) {
                    continue;
                }
                sb.append("    ")
                        .append(TomlText.dotted(sub))
                        .append(" = ")
                        .append(e.raw())
                        .append('\n');
            }
            if (binary.isPresent() && options) {
                sb.append("    BinaryName = ").append(TomlText.string(binary.get())).append('\n');
                if (version == 1) {
                    sb.append("    Runtime = ").append(TomlText.string(binary.get())).append('\n');
                }
            }
        }
        sb.append('\n');
        return sb.toString();
    }

    private static String stringAt(String source, TomlParseResult parsed, List<String> path)
            throws ConfigException {
        Object v = parsed.get(path);
        if (v != null && !(v instanceof String)) {
            throw new ConfigException(
                    source + ": " + TomlText.dotted(path) + " must be a string, found " + v);
        }
        return (String) v;
    }

    private static List<String> stringList(Object v) {
        if (!(v instanceof TomlArray a)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Object o : a.toList()) {
            if (o instanceof String s) {
                out.add(s);
            }
        }
        return out;
    }

    private static String renderStrings(List<String> values) {
        return values.stream()
                .map(TomlText::string)
                .collect(java.util.stream.Collectors.joining(", ", "[", "]"));
    }

    private static String mask(Input in) {
        if (!in.template()) {
            return in.text();
        }
        return in.text().replaceAll("(?m)^([ \\t]*\\{\\{.*}}[ \\t]*)$", TEMPLATE_MASK + "$1");
    }

    private static String unmask(String text) {
        return text.replace(TEMPLATE_MASK, "");
    }

    static List<String> append(List<String> path, String... more) {
        List<String> out = new ArrayList<>(path);
        out.addAll(List.of(more));
        return List.copyOf(out);
    }
}
