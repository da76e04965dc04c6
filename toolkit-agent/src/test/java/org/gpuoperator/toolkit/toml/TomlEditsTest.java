package org.gpuoperator.toolkit.toml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.gpuoperator.toolkit.ConfigException;
import org.junit.jupiter.api.Test;

class TomlEditsTest {

    static final String TEXT =
            """
            top = 1 # c
            [a."b.c"]
              list = [
                "x", # inside
                "y",
              ]
              s = '''
            multi [not a table]
            '''
              d.e = "dotted"
              t = 1979-05-27 07:32:00Z   # date with a space
            [a."b.c".sub]
              k = { x = 1, y = "}" }
            """;

    @Test
    void layoutSeesKeysThroughMultiLineValuesAndQuotedNames() throws Exception {
        TomlCheck.parse("t", TEXT);
        TomlLayout l = TomlLayout.scan(TEXT);
        assertThat(l.rawValue(List.of("a", "b.c", "d", "e"))).contains("\"dotted\"");
        assertThat(l.rawValue(List.of("a", "b.c", "t"))).contains("1979-05-27 07:32:00Z");
        assertThat(l.rawValue(List.of("a", "b.c", "sub", "k"))).contains("{ x = 1, y = \"}\" }");
        assertThat(l.table(List.of("a", "b.c", "sub"))).isPresent();
        assertThat(l.entries()).noneMatch(e -> e.path().contains("not a table"));
    }

    @Test
    void setReplacesOnlyTheValueAndKeepsTheComment() throws Exception {
        String out = TomlEdits.set(TEXT, List.of("top"), "2");
        assertThat(out).isEqualTo(TEXT.replace("top = 1 # c", "top = 2 # c"));
        String dotted = TomlEdits.set(TEXT, List.of("a", "b.c", "d", "e"), "\"new\"");
        assertThat(dotted).isEqualTo(TEXT.replace("d.e = \"dotted\"", "d.e = \"new\""));
        TomlCheck.parse("t", dotted);
    }

    @Test
    void setAddsAMissingKeyNextToItsSiblings() throws Exception {
        String out = TomlEdits.set(TEXT, List.of("a", "b.c", "sub", "z"), "true");
        assertThat(TomlCheck.parse("t", out).getBoolean(List.of("a", "b.c", "sub", "z"))).isTrue();
        assertThat(out).startsWith(TEXT.substring(0, TEXT.indexOf("  k =")));
        String top = TomlEdits.set(TEXT, List.of("imports"), "[]");
        assertThat(top).startsWith("top = 1 # c\nimports = []\n[a.");
        TomlCheck.parse("t", top);
    }

    @Test
    void removeTreeRemovesTablesAndTheirKeysOnly() throws Exception {
        String out = TomlEdits.removeTree(TEXT, List.of("a", "b.c", "sub"));
        assertThat(out).isEqualTo(TEXT.substring(0, TEXT.indexOf("[a.\"b.c\".sub]")));
        TomlCheck.parse("t", out);
    }

    @Test
    void parseErrorsNameFileLineAndColumn() {
        assertThatThrownBy(() -> TomlCheck.parse("/etc/x.toml", "a = 1\nb = \n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("/etc/x.toml:2:")
                .hasMessageContaining("invalid TOML");
    }

    @Test
    void templateActionsAreNotToml() {
        String t = "{{ template \"base\" . }}\n[x]\n  y = 1\n";
        assertThat(TomlCheck.hasTemplateActions(t)).isTrue();
        assertThat(TomlCheck.templateBody(t)).isEqualTo("\n[x]\n  y = 1\n");
    }
}
