package org.gpuoperator.exporter.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The test parser must itself reject what the format forbids, or the scrape tests would prove
 * nothing.
 */
class PrometheusTextParserTest {

    @Test
    void parsesFamiliesLabelsEscapesAndValues() {
        var f =
                PrometheusTextParser.parse(
                        """
                # HELP m help with \\\\ and \\n
                # TYPE m gauge
                m{a="x\\"y",b="1\\\\"} 1.5
                m{a="z"} -Inf
                # TYPE c untyped
                c 3e2 1700000000000
                """);
        assertThat(f.get("m").type()).isEqualTo("gauge");
        assertThat(f.get("m").help()).isEqualTo("help with \\ and \n");
        assertThat(f.get("m").samples().get(0).labels())
                .containsEntry("a", "x\"y")
                .containsEntry("b", "1\\");
        assertThat(f.get("m").samples().get(1).value()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(f.get("c").samples().get(0).value()).isEqualTo(300.0);
    }

    @Test
    void rejectsWhatTheFormatForbids() {
        assertThatThrownBy(() -> PrometheusTextParser.parse("m{a=\"x\"} 1\nm{a=\"x\"} 2\n"))
                .hasMessageContaining("line 2")
                .hasMessageContaining("duplicate");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m 1\nn 1\nm{a=\"b\"} 2\n"))
                .hasMessageContaining("line 3")
                .hasMessageContaining("grouped");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m 1\n# TYPE m gauge\n"))
                .hasMessageContaining("after");
        assertThatThrownBy(() -> PrometheusTextParser.parse("# TYPE m weird\n"))
                .hasMessageContaining("unknown type");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m{a=x} 1\n"))
                .hasMessageContaining("quoted");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m{a=\"\\t\"} 1\n"))
                .hasMessageContaining("escape");
        assertThatThrownBy(() -> PrometheusTextParser.parse("1m 1\n"))
                .hasMessageContaining("metric name");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m one\n"))
                .hasMessageContaining("bad value");
        assertThatThrownBy(() -> PrometheusTextParser.parse("m 1"))
                .hasMessageContaining("line feed");
    }
}
