package synth

// DigestGrammars are the grammars the decision digests were recorded on,
// for the external tests' digest.
var DigestGrammars = digestGrammars
