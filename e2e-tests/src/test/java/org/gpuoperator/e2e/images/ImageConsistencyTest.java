package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Every component has an image, a version in the matrix and a release trigger, and they agree. */
class ImageConsistencyTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static Properties matrix;
    private static final String TEST_SUPPORT = "kubelet-emulator";
    private static List<String> components;
    private static List<String> modules;

    @BeforeAll
    static void load() throws IOException {
        matrix = new Properties();
        try (Reader r = Files.newBufferedReader(REPO.resolve("images/versions.properties"))) {
            matrix.load(r);
        }
        // A component is a module with a runnable main, except the test harness itself, the
        // test-support module (the
        // kubelet emulators, runnable for benchmarks, in no image) and the shared library (its main
        // is the inventory
        // check, a diagnostic shipped inside every agent image).
        components = new ArrayList<>();
        modules = new ArrayList<>();
        Matcher m = MODULE.matcher(Files.readString(REPO.resolve("pom.xml")));
        while (m.find()) {
            String module = m.group(1);
            modules.add(module);
            String pom = Files.readString(REPO.resolve(module).resolve("pom.xml"));
            if (pom.contains("<app.main.class>")
                    && !module.equals("e2e-tests")
                    && !module.equals(TEST_SUPPORT)
                    && !module.equals("node-agent-lib")) {
                components.add(module);
            }
        }
    }

    @Test
    void theComponentListIsTheExpectedOne() {
        assertThat(components)
                .containsExactlyInAnyOrder(
                        "operator-controller",
                        "driver-agent",
                        "toolkit-agent",
                        "device-plugin",
                        "feature-discovery",
                        "dcgm-exporter",
                        "mig-manager",
                        "validator");
    }

    @Test
    void noModuleButTheWholeSystemTestsDependsOnTheKubeletEmulatorOutsideTests() throws Exception {
        assertThat(modules).contains(TEST_SUPPORT);
        List<String> users = new ArrayList<>();
        for (String module : modules) {
            Document pom =
                    DocumentBuilderFactory.newInstance()
                            .newDocumentBuilder()
                            .parse(REPO.resolve(module).resolve("pom.xml").toFile());
            NodeList deps = pom.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element d = (Element) deps.item(i);
                if (!TEST_SUPPORT.equals(child(d, "artifactId"))
                        || d.getParentNode()
                                .getParentNode()
                                .getNodeName()
                                .equals("dependencyManagement")) {
                    continue;
                }
                users.add(module);
                if (!module.equals("e2e-tests")) {
                    assertThat(child(d, "scope"))
                            .as(
                                    "scope of %s's dependency on %s (it must stay out of the "
                                            + "module's jar, lib/ and image)",
                                    module, TEST_SUPPORT)
                            .isEqualTo("test");
                }
            }
        }
        // the modules whose tests need the emulators; a new user is fine, as long as the scope
        // above holds
        assertThat(users).contains("device-plugin", "dcgm-exporter", "e2e-tests");
    }

    private static String child(Element e, String name) {
        NodeList l = e.getElementsByTagName(name);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().trim();
    }

    @Test
    void theImageBuilderFindsTestSupportInAComponentsJarOrLib(@TempDir Path dir)
            throws IOException {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.createFile(lib.resolve("kubelet-api-0.1.0-SNAPSHOT.jar"));
        Path jar = dir.resolve("device-plugin.jar");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(new ZipEntry("org/gpuoperator/deviceplugin/DevicePluginMain.class"));
            z.closeEntry();
        }
        assertThat(LocalImages.testSupportIn(jar, lib)).isEmpty();

        Files.createFile(lib.resolve("kubelet-emulator-0.1.0-SNAPSHOT.jar"));
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(
                    new ZipEntry(
                            "org/gpuoperator/deviceplugin/kubeletemulator/KubeletEmulator.class"));
            z.closeEntry();
        }
        assertThat(LocalImages.testSupportIn(jar, lib))
                .containsExactly(
                        "lib/kubelet-emulator-0.1.0-SNAPSHOT.jar",
                        "org/gpuoperator/deviceplugin/kubeletemulator/KubeletEmulator.class");
    }

    @Test
    void everyComponentHasAnImageThatCopiesAndRunsItsOwnJar() throws IOException {
        for (String c : components) {
            Path dockerfile = REPO.resolve("images").resolve(c).resolve("Dockerfile");
            assertThat(dockerfile).as("image definition of %s", c).exists();
            String d = Files.readString(dockerfile);
            // the jars come from one Maven build (images/build-jars.sh): no Dockerfile builds its
            // own
            assertThat(d)
                    .as(c)
                    .contains("COPY " + c + "/target/" + c + ".jar ")
                    .contains("COPY " + c + "/target/lib/ ")
                    .contains("\"/app/" + c + ".jar\"")
                    .contains("images/" + c + "/jvm.flags")
                    .doesNotContainPattern("(?m)^RUN .*\\b(mvn|mvnw)\\b")
                    .doesNotContain("--from=build");
            // pinned base images: every FROM names an exact version, never "latest" or a bare name
            for (String from :
                    d.lines().filter(l -> l.startsWith("ARG ") && l.contains("_IMAGE=")).toList()) {
                assertThat(from)
                        .as("%s base image pinned", c)
                        .matches("ARG \\w+=\\S+:\\S*\\d\\S*")
                        .doesNotContain(":latest");
            }
            assertThat(REPO.resolve("images").resolve(c).resolve("jvm.flags")).exists();
        }
    }

    @Test
    void everyComponentHasAVersionAndAReleaseTagOfItsOwn() throws IOException {
        String release = Files.readString(REPO.resolve(".github/workflows/release.yml"));
        for (String c : components) {
            assertThat(matrix.getProperty(c))
                    .as("version of %s in images/versions.properties", c)
                    .matches("\\d+\\.\\d+\\.\\d+");
            assertThat(release).as("release trigger of %s", c).contains("- '" + c + "/v*'");
        }
        assertThat(matrix.stringPropertyNames())
                .containsExactlyInAnyOrderElementsOf(
                        Stream.concat(components.stream(), Stream.of("registry")).toList());
    }

    @Test
    void theReleaseAndTheKindScriptBuildTheJarsOnceBeforeTheImages() throws IOException {
        String release = Files.readString(REPO.resolve(".github/workflows/release.yml"));
        String kind = Files.readString(REPO.resolve("e2e-tests/kind/run-kind-e2e.sh"));
        assertThat(REPO.resolve("images/build-jars.sh")).isExecutable();
        assertThat(release.indexOf("run: images/build-jars.sh"))
                .as("release.yml runs images/build-jars.sh")
                .isNotNegative()
                .isLessThan(release.indexOf("docker/build-push-action"));
        assertThat(kind.indexOf("\nimages/build-jars.sh"))
                .as("run-kind-e2e.sh runs images/build-jars.sh")
                .isNotNegative()
                .isLessThan(kind.indexOf("docker build "));
    }

    @Test
    void theBuildContextKeepsWhatTheImagesCopy() throws IOException {
        // .dockerignore patterns (no ! exceptions in ours), matched like Docker's: a pattern that
        // matches a parent
        // directory leaves out everything under it
        List<java.nio.file.PathMatcher> ignored =
                Files.readAllLines(REPO.resolve(".dockerignore")).stream()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .peek(l -> assertThat(l).as(".dockerignore pattern").doesNotStartWith("!"))
                        .map(
                                l ->
                                        java.nio.file.FileSystems.getDefault()
                                                .getPathMatcher("glob:" + l))
                        .toList();
        for (String c : components) {
            for (String copied :
                    List.of(
                            c + "/target/" + c + ".jar",
                            c + "/target/lib/x.jar",
                            "images/" + c + "/jvm.flags")) {
                for (Path p = Path.of(copied); p != null; p = p.getParent()) {
                    Path candidate = p;
                    assertThat(ignored)
                            .as("%s left out of the build context by .dockerignore", copied)
                            .noneMatch(m -> m.matches(candidate));
                }
            }
        }
    }

    @Test
    void theKindScriptBuildsAndLoadsEveryComponent() throws IOException {
        String script = Files.readString(REPO.resolve("e2e-tests/kind/run-kind-e2e.sh"));
        String list =
                script.lines().filter(l -> l.startsWith("COMPONENTS=")).findFirst().orElseThrow();
        assertThat(List.of(list.replaceAll("^COMPONENTS=\"?|\"$", "").trim().split("\\s+")))
                .containsExactlyInAnyOrderElementsOf(components);
    }

    @Test
    void nodeAgentsRunWithTheSmallFootprintJvm() throws IOException {
        for (String c : components) {
            if (c.equals("operator-controller")) {
                continue;
            }
            // java @argfile syntax: flags separated by blanks or newlines, # starts a comment
            List<String> flags =
                    Files.readAllLines(REPO.resolve("images").resolve(c).resolve("jvm.flags"))
                            .stream()
                            .filter(l -> !l.startsWith("#"))
                            .flatMap(l -> java.util.Arrays.stream(l.trim().split("\\s+")))
                            .filter(f -> !f.isEmpty())
                            .toList();
            assertThat(flags).as(c).contains("-XX:+UseSerialGC");
            assertThat(flags)
                    .as(c)
                    .filteredOn(f -> f.startsWith("-Xmx"))
                    .singleElement()
                    .satisfies(
                            x ->
                                    assertThat(Integer.parseInt(x.replaceAll("\\D", "")))
                                            .isLessThanOrEqualTo(64));
        }
    }
}
