package parley

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports lists, for each package of the module, the module
// packages it may import (docs/architecture.md: cmd -> api -> reports ->
// index -> query, and api, reports, index, storage -> domain; search, the
// one door for every read of a list, serves api, reports and workflow and
// reads index and query; the indexer writes to index and reads storage through the domain's seam, as
// do the workers: webhooks, email, importer, fixtures; dashboard and inbox
// are the web pages' files, which api serves). Only cmd imports a concrete
// engine or storage backend.
var allowedImports = map[string][]string{
	"":                  {},
	"query":             {},
	"internal/golden":   {},
	"internal/gcpolicy": {},
	"internal/duework":  {}, // the due-work loop of the workers and the scheduler
	"internal/conncap":  {}, // the per-address connection cap of the API and the SMTP listener
	"storage":           {""},
	"pgstore":           {""}, // the PostgreSQL store; its tests add internal/pgtest and internal/storetest
	// Test support: the conformance suite every store backend runs.
	"internal/storetest": {"", "indexer"},
	"index":              {"", "query"}, // the contract reads no storage
	"indexer":            {"", "index"}, // storage only through the domain's seam
	"index/bleveindex":   {"index", "query"},
	"index/scan":         {"index", "query"},
	"index/pgindex":      {"index", "query"},
	"internal/pgtest":    {"internal/pgtest/pgserver"},
	// Test support: the table of engines tests hold to the oracle.
	"index/enginetest": {"index", "index/bleveindex", "index/pgindex", "indexer", "internal/pgtest", "storage"},
	"index/lists":      {"", "index", "query"}, // filled through a projection passed in (indexer.Documents)
	// The PostgreSQL store's indexer: a write's documents (indexer) into
	// pgindex's tables, on the write's transaction.
	"pgsearch":           {"", "index/pgindex", "indexer", "pgstore"},
	"search":             {"", "index", "query"},
	"reports":            {"", "index", "query", "search"},
	"workflow":           {"", "index", "index/scan", "indexer", "internal/duework", "query", "search"},
	"api":                {"", "dashboard", "inbox", "index", "indexer", "internal/conncap", "internal/webassets", "query", "reports", "search", "workflow"},
	"dashboard":          {"internal/webassets"}, // static files only; the api package serves them
	"inbox":              {"internal/webassets"}, // likewise
	"internal/webassets": {},
	// Test support: the web pages' browser tests, on the real server over
	// the demo data.
	"internal/browsertest": {"", "api", "fixtures", "index", "index/bleveindex", "index/lists", "indexer", "internal/headless", "storage"},
	// Starts Chromium and signs in to a web page, for the browser tests and the bench.
	"internal/headless": {},
	// The workers and loaders see storage through the domain's seam (their
	// tests run on bbolt).
	"fixtures":         {"", "search", "workflow"}, // demo views' queries and workflows' conditions go through the checkers
	"webhooks":         {"", "internal/duework"},
	"importer":         {""},
	"puller":           {"", "importer", "workflow"}, // parley pull: a Mailbox API 2.0 source through the importer; workflows' conditions go through the checker
	"transfer":         {"", "index", "query"},       // parley copy: the seam on both sides, searches compared
	"email":            {"", "internal/conncap", "internal/duework"},
	"email/smtptest":   {},
	"cmd/parley-bench": {"", "api", "internal/gcpolicy", "internal/headless", "index", "index/bleveindex", "index/lists", "index/scan", "indexer", "storage", "query", "internal/pgtest/pgserver", "pgstore", "index/pgindex", "pgsearch", "workflow"},
	// Chooses the backend: bbolt and Bleve embedded, or pgstore and pgindex.
	"cmd/parley": {"", "api", "internal/gcpolicy", "fixtures", "index", "index/bleveindex", "index/lists", "index/pgindex", "indexer",
		"pgsearch", "pgstore", "storage", "query", "reports", "webhooks", "importer", "email", "workflow", "transfer", "puller"},
	// Starts PostgreSQL servers for the tests (through pgtest) and the bench's peer.
	"internal/pgtest/pgserver": {},
}

func TestImportDirection(t *testing.T) {
	const module = "github.com/parley/parley"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		allowed, known := allowedImports[rel]
		if !known {
			t.Errorf("package %q is not in the layer map; add it to allowedImports", rel)
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			ok := false
			for _, a := range allowed {
				ok = ok || a == dep
			}
			if !ok {
				t.Errorf("%s imports %s, against the layer order", pkg, imp)
			}
		}
	}
}

// forbiddenInDomain are imports the domain (the root package, tests
// aside) may not have: it speaks neither HTTP nor a storage engine's
// language, so a second transport or backend needs no change here.
var forbiddenInDomain = []string{"net/http", "github.com/gin-gonic/", "go.etcd.io/bbolt", "github.com/blevesearch/", "database/sql", "github.com/jackc/"}

func TestDomainImportsNoTransportOrEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		for _, f := range forbiddenInDomain {
			if imp == f || strings.HasSuffix(f, "/") && strings.HasPrefix(imp, f) {
				t.Errorf("the domain imports %s; HTTP belongs in api, engines in storage and index", imp)
			}
		}
	}
}

// listReaders are the packages that read lists only through search, the
// one door for every read of a list: none of them builds the engine's
// search request (index.Request) or holds its answer (index.Result), so
// none calls an engine's Search for a list. Aggregations and facets of the
// reports have requests of their own.
var listReaders = []string{"api", "reports", "workflow"}

func TestListsAreReadThroughSearch(t *testing.T) {
	const indexPath = "github.com/parley/parley/index"
	forbidden := map[string]bool{"Request": true, "Result": true}
	for _, dir := range listReaders {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			local := ""
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == indexPath {
					local = "index"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == local && forbidden[sel.Sel.Name] {
					t.Errorf("%s: index.%s: %s reads lists through search (search.List and the like), not the engine's Search",
						fset.Position(sel.Pos()), sel.Sel.Name, dir)
				}
				return true
			})
		}
	}
}
