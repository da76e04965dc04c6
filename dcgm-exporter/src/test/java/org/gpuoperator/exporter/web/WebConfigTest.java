package org.gpuoperator.exporter.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WebConfigTest {

    private static final String HASH =
            "$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG";
    private static final Path DIR = Path.of("/etc/dcgm-exporter");

    @Test
    void readsUpstreamKeysAndResolvesRelativePaths() {
        WebConfig c =
                WebConfig.parse(
                        "web.yaml",
                        """
                tls_server_config:
                  cert_file: tls/tls.crt
                  key_file: /abs/tls.key
                  min_version: TLS13
                basic_auth_users:
                  alice: %s
                """
                                .formatted(HASH),
                        DIR);
        assertThat(c.tls())
                .isEqualTo(
                        new WebConfig.Tls(
                                DIR.resolve("tls/tls.crt"), Path.of("/abs/tls.key"), "TLSv1.3"));
        assertThat(c.users()).containsExactly(java.util.Map.entry("alice", HASH));
        assertThat(c.authRequired()).isTrue();
    }

    @Test
    void anEmptyFileMeansPlainHttpWithoutAuth() {
        assertThat(WebConfig.parse("web.yaml", "", DIR)).isEqualTo(WebConfig.NONE);
    }

    @Test
    void rejectsWhatItDoesNotImplementByName() {
        assertThatThrownBy(() -> WebConfig.parse("web.yaml", "tls_config: {}\n", DIR))
                .hasMessage("web.yaml: unknown key 'tls_config'");
        assertThatThrownBy(
                        () ->
                                WebConfig.parse(
                                        "web.yaml",
                                        "tls_server_config: {cert_file: a, key_file: b, client_auth_type: RequireAndVerifyClientCert}\n",
                                        DIR))
                .hasMessageContaining(
                        "client_auth_type RequireAndVerifyClientCert is not supported");
        assertThatThrownBy(
                        () ->
                                WebConfig.parse(
                                        "web.yaml", "tls_server_config: {cert_file: a}\n", DIR))
                .hasMessageContaining("tls_server_config.key_file is required");
        assertThatThrownBy(
                        () -> WebConfig.parse("web.yaml", "basic_auth_users: {bob: secret}\n", DIR))
                .hasMessageContaining("basic_auth_users.bob is not a bcrypt hash");
        assertThatThrownBy(() -> WebConfig.parse("web.yaml", "basic_auth_users: [\n", DIR))
                .hasMessageStartingWith("web.yaml: not valid YAML");
    }
}
