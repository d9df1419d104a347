plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "ai.edgeranker.demo"
    compileSdk = 34
    defaultConfig {
        applicationId = "ai.edgeranker.demo"
        minSdk = 24  // the core's streams and default methods
        targetSdk = 34
        versionCode = 1
        versionName = "0.1.0"
    }
    // The shipped model folders (manifest, int8 ONNX, tokenizer, vocab) are bundled as assets as they are,
    // and so is the demo feed (edge_ranker/demo/feed.jsonl), shared with `edge-ranker demo`. The core's Encoder
    // reads the weights from model.onnx itself, so the assets may be compressed like any other.
    sourceSets["main"].assets.srcDirs("../../edge_ranker/models", "../../edge_ranker/demo")
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions { jvmTarget = "17" }
}

dependencies {
    implementation(project(":core"))  // tokenizer, forward pass and ranking: no native library
}
