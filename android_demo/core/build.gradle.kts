// Plain JVM module: tokenization, centers of interest, fusion. No Android dependency, so its golden test
// also runs with the bare JDK (core/run_tests.sh), which is what CI does.
plugins {
    `java-library`
}

sourceSets["main"].resources.srcDir("${rootDir}/../spec/unicode")  // unicode.tsv, written by spec/tools
sourceSets["main"].resources.srcDir("${rootDir}/../spec/stopwords")  // stopwords.tsv, written by spec/tools

java {
    toolchain { languageVersion.set(JavaLanguageVersion.of(17)) }
}

tasks.register<JavaExec>("goldenTest") {
    description = "Checks the core against the Python runtime's golden vectors"
    classpath = sourceSets["test"].runtimeClasspath
    mainClass.set("ai.edgeranker.core.GoldenTest")
    args = listOf("${rootDir}/../spec/golden", "${rootDir}/../edge_ranker/models")
}
tasks.named("check") { dependsOn("goldenTest") }
