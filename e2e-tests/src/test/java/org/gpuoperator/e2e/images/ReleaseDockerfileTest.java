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
    void aShellFormEntrypointIsRejectedNamingTheFile() {
        assertThatThrownBy(
                        () ->
                                ReleaseDockerfile.parse(
                                        "images/x/Dockerfile",
                                        "FROM a\nENTRYPOINT java -jar x.jar\n"))
                .hasMessageStartingWith("images/x/Dockerfile: ENTRYPOINT must use the exec form");
    }
}
