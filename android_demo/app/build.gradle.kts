plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "ai.edgeranker.demo"
    compileSdk = 34
    defaultConfig {
        applicationId = "ai.edgeranker.demo"
        minSdk = 24  // ONNX Runtime Android supports API 21+; 24 for java.nio.file and streams
        targetSdk = 34
        versionCode = 1
        versionName = "0.1.0"
    }
    // The shipped model folders (manifest, int8 ONNX, tokenizer, vocab) are bundled as assets as they are.
    // and so is the demo feed (edge_ranker/demo/feed.jsonl), shared with `edge-ranker demo`.
    sourceSets["main"].assets.srcDirs("../../edge_ranker/models", "../../edge_ranker/demo")
    androidResources { noCompress += listOf("onnx") }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions { jvmTarget = "17" }
}

dependencies {
    implementation(project(":core"))
    implementation("com.microsoft.onnxruntime:onnxruntime-android:1.19.2")
}
