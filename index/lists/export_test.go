package lists

// Doc is doc (fill_test.go) for the tests of package lists_test.
var Doc = doc
