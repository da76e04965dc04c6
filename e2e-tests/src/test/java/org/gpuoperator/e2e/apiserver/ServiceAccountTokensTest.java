package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServiceAccountTokensTest {

    @Test
    void aMintedTokenNamesItsServiceAccount() {
        String token = ServiceAccountTokens.mint("gpu-operator", "nvidia-driver");
        assertThat(ServiceAccountTokens.caller("Bearer " + token))
                .isEqualTo("system:serviceaccount:gpu-operator:nvidia-driver");
    }

    @Test
    void eachServiceAccountGetsItsOwnToken() {
        assertThat(ServiceAccountTokens.mint("ns", "a"))
                .isNotEqualTo(ServiceAccountTokens.mint("ns", "b"))
                .isNotEqualTo(ServiceAccountTokens.mint("other", "a"));
    }

    @Test
    void otherTokensAreTheirOwnUserAndNoTokenIsAnonymous() {
        assertThat(ServiceAccountTokens.caller("Bearer simulated")).isEqualTo("simulated");
        assertThat(ServiceAccountTokens.caller("Bearer a.b.c")).isEqualTo("a.b.c");
        assertThat(ServiceAccountTokens.caller(null)).isEqualTo("system:anonymous");
        assertThat(ServiceAccountTokens.caller("Basic eDp5")).isEqualTo("system:anonymous");
    }
}
