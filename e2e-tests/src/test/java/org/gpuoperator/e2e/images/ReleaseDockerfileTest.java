package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReleaseDockerfileTest {

    private static final String DOCKERFILE =
            """
            ARG RUNTIME_IMAGE=eclipse-temurin:25-jre
            FROM maven AS build
            COPY . .
            RUN mvn \\
                package
            FROM ${RUNTIME_IMAGE}
            # comment
            COPY --from=other:1.0 /usr/bin/a* /usr/bin/b /artifacts/toolkit/
            COPY --from=build /src/x/target/x.jar /app/x.jar
            COPY images/x/jvm.flags /app/jvm.flags
            ENV JAVA_HOME=/opt/java/openjdk PATH=/opt/java/openjdk/bin:$PATH
            USER 0:0
            WORKDIR /app
            ENTRYPOINT ["java", "@/app/jvm.flags", "-jar", "/app/x.jar"]
            """;

    @Test
    void readsTheFinalStageOnly() {
        ReleaseDockerfile d = ReleaseDockerfile.parse("Dockerfile", DOCKERFILE);
        assertThat(d.copies())
                .containsExactly(
                        new ReleaseDockerfile.Copy(
                                "other:1.0",
                                List.of("/usr/bin/a*", "/usr/bin/b"),
                                "/artifacts/toolkit/"),
                        new ReleaseDockerfile.Copy(
                                "build", List.of("/src/x/target/x.jar"), "/app/x.jar"),
                        new ReleaseDockerfile.Copy(
                                "", List.of("images/x/jvm.flags"), "/app/jvm.flags"));
        assertThat(d.entrypoint()).containsExactly("java", "@/app/jvm.flags", "-jar", "/app/x.jar");
        assertThat(d.user()).isEqualTo("0:0");
        assertThat(d.workingDirectory()).isEqualTo("/app");
        assertThat(d.env())
                .isEqualTo(
                        Map.of(
                                "JAVA_HOME",
                                "/opt/java/openjdk",
                                "PATH",
                                "/opt/java/openjdk/bin:$PATH"));
    }

    @Test
    void readsTheFinalStagesRunLinesWithTheirBindMountsAndPosition() {
        ReleaseDockerfile d =
                ReleaseDockerfile.parse(
                        "Dockerfile",
                        """
                        FROM a AS first
                        RUN echo not-this-stage
                        FROM b
                        RUN apt-get update && \\
                            apt-get install -y kmod
                        COPY x/target/x.jar /app/x.jar
                        RUN --mount=type=cache,target=/var/cache \\
                            --mount=type=bind,source=images/t.sh,target=/tmp/t.sh \\
                            bash /tmp/t.sh x /app /app/x.aot java
                        ENTRYPOINT ["java", "-jar", "/app/x.jar"]
                        """);
        assertThat(d.runs())
                .containsExactly(
                        new ReleaseDockerfile.Run(
                                Map.of(),
                                List.of(
                                        "apt-get", "update", "&&", "apt-get", "install", "-y",
                                        "kmod"),
                                0),
                        new ReleaseDockerfile.Run(
                                Map.of("/tmp/t.sh", "images/t.sh"),
                                List.of("bash", "/tmp/t.sh", "x", "/app", "/app/x.aot", "java"),
                                1));
        assertThatThrownBy(
                        () ->
                                ReleaseDockerfile.parse(
                                        "images/x/Dockerfile",
                                        "FROM a\nRUN --mount=type=bind,source=s echo\n"
                                                + "ENTRYPOINT [\"java\"]\n"))
                .hasMessageStartingWith(
                        "images/x/Dockerfile: RUN --mount=type=bind needs source and target");
    }

    @Test
    void aShellFormEntrypointIsRejectedNamingTheFile() {
        assertThatThrownBy(
                        () ->
                                ReleaseDockerfile.parse(
                                        "images/x/Dockerfile",
                                        "FROM a\nENTRYPOINT java -jar x.jar\n"))
                .hasMessageStartingWith("images/x/Dockerfile: ENTRYPOINT must use the exec form");
    }
}
