// Rewrites, in place, every jar of the given lib/ directories that holds classes older than Java 6 (class file
// version < 50): those classes become version 52 (Java 8) with the stack maps the split verifier needs, made by the
// JDK's own class-file API; every other entry is copied byte for byte.
//   bin/java25 images/RetargetOldClasses.java DIR...
// Why: the JDK's AOT cache with class linking (JEP 483, images/aot-training.sh) leaves out classes older than version
// 50 ("Old class has been linked"), so each agent loaded picocli 4.7.7 (compiled for Java 5) from its jar at every
// start, and verified it with the old inference verifier: 25 to 170 ms of each agent's start (images/README.md).
// Run by every component's Maven build after its lib/ is copied (the parent pom, execution aot-linkable-lib), so the
// release images, the local images and the process-mode cluster run the same jars. A jar with nothing to rewrite is
// not touched, so a second run changes nothing. A signed jar (its signatures would no longer hold), or one with a
// class the API cannot give stack maps (jsr/ret), is left as it was, and said so; a jar is replaced only once its
// new copy is complete.
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

public class RetargetOldClasses {

    /** The first version the AOT cache links (and that must carry stack maps). */
    static final int FIRST_LINKABLE = 50;

    /** What old classes become: Java 8, the oldest version with every construct javac 5 emits. */
    static final int TARGET = 52;

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: RetargetOldClasses.java LIB_DIR...");
            System.exit(2);
        }
        for (String dir : args) {
            List<Path> jars;
            try (Stream<Path> s = Files.list(Path.of(dir))) {
                jars = s.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
            }
            // stack maps name the common super type at each merge point: resolved from the JDK and the
            // other jars of the same class path
            List<URL> urls = new ArrayList<>();
            for (Path j : jars) {
                urls.add(j.toUri().toURL());
            }
            try (URLClassLoader classPath =
                    new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
                ClassFile classFile =
                        ClassFile.of(
                                ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                                ClassFile.ClassHierarchyResolverOption.of(
                                        ClassHierarchyResolver.defaultResolver()
                                                .orElse(ClassHierarchyResolver.ofResourceParsing(classPath))));
                for (Path jar : jars) {
                    String done = retarget(jar, classFile);
                    if (!done.isEmpty()) {
                        System.out.println("RetargetOldClasses: " + jar + ": " + done);
                    }
                }
            }
        }
    }

    /** Rewrites {@code jar} if it holds old classes; says what it did, or "" when nothing was to do. */
    static String retarget(Path jar, ClassFile classFile) throws IOException {
        int old = 0;
        String signature = null;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                String name = e.getName();
                if (name.startsWith("META-INF/") && name.endsWith(".SF")) {
                    signature = name;
                }
                if (isClass(name) && version(zip.getInputStream(e).readNBytes(8)) < FIRST_LINKABLE) {
                    old++;
                }
            }
            if (old == 0) {
                return "";
            }
            if (signature != null) {
                return "left as it was: " + old + " old classes, but signed (" + signature + ")";
            }
            Path tmp = Files.createTempFile(jar.getParent(), jar.getFileName().toString(), ".tmp");
            try {
                try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(tmp))) {
                    for (ZipEntry e : Collections.list(zip.entries())) {
                        byte[] bytes = zip.getInputStream(e).readAllBytes();
                        if (isClass(e.getName()) && version(bytes) < FIRST_LINKABLE) {
                            bytes = linkable(classFile, classFile.parse(bytes), e.getName());
                        }
                        ZipEntry copy = new ZipEntry(e.getName());
                        copy.setTime(e.getTime());
                        out.putNextEntry(copy);
                        out.write(bytes);
                        out.closeEntry();
                    }
                }
                Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IllegalArgumentException | IllegalStateException e) {
                return "left as it was: " + e.getMessage();
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return old + " classes older than Java 6 now version " + TARGET + " with stack maps";
    }

    private static byte[] linkable(ClassFile classFile, ClassModel model, String entry) {
        try {
            return classFile.transformClass(
                    model,
                    ClassTransform.dropping(e -> e instanceof ClassFileVersion)
                            // rebuilding each method body is what makes the API compute its stack maps
                            .andThen(ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL))
                            .andThen(ClassTransform.endHandler(b -> b.withVersion(TARGET, 0))));
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IllegalStateException(entry + " cannot be given stack maps: " + e.getMessage(), e);
        }
    }

    private static boolean isClass(String name) {
        return name.endsWith(".class") && !name.endsWith("module-info.class");
    }

    /** The major version of a class file, from its first 8 bytes (magic, minor, major). */
    private static int version(byte[] head) {
        return ((head[6] & 0xff) << 8) | (head[7] & 0xff);
    }
}
