package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/term"

	parley "github.com/parley/parley"
	"github.com/parley/parley/api"
)

// initFlags maps the request paths of parley.NewCompany to the flags of
// `parley init`, so validation errors name what the operator typed.
var initFlags = map[string]string{
	"name": "--company", "plan": "--plan", "owner.email": "--owner", "owner.firstName": "--first-name",
	"owner.lastName": "--last-name", "owner.password": "the password", "mailbox.name": "--mailbox-name",
	"mailbox.email": "--mailbox-email", "appName": "--app-name",
}

// initCommand creates a company with its owner, a first mailbox and an
// OAuth application (parley.CreateCompany), in a data directory no server
// holds or in a PostgreSQL database (--database), and prints the
// credentials once. The owner's password is read from the terminal when
// stdin is one, else generated and printed.
func initCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "./parley-data", "data directory (PARLEY_DATA)")
	database := addDatabaseFlag(fs)
	company := fs.String("company", "", "name of the company (required)")
	owner := fs.String("owner", "", "e-mail of the company's owner, who signs in with it (required)")
	plan := fs.String("plan", "standard", "plan: standard, plus or pro")
	first := fs.String("first-name", "", "owner's first name; default: the e-mail's local part")
	last := fs.String("last-name", "", "owner's last name")
	mailboxName := fs.String("mailbox-name", "Support", "name of the first mailbox")
	mailboxEmail := fs.String("mailbox-email", "", "address of the first mailbox; default: the owner's")
	appName := fs.String("app-name", "API application", "name of the OAuth application")
	if err := parseFlags(fs, args, map[string]string{"data": "data", "database": databaseEnv}); err != nil {
		return err
	}
	if *company == "" || *owner == "" {
		return fmt.Errorf("%w: --company and --owner are required", errUsage)
	}
	req := parley.NewCompany{Name: company, Plan: plan, Owner: parley.NewOwner{Email: owner},
		Mailbox: parley.NewMailbox{Name: mailboxName}, AppName: appName}
	if *first != "" {
		req.Owner.FirstName = first
	}
	if *last != "" {
		req.Owner.LastName = last
	}
	if *mailboxEmail != "" {
		req.Mailbox.Email = mailboxEmail
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		password, err := readPassword(f, stderr)
		if err != nil {
			return err
		}
		req.Owner.Password = &password
	}
	at := location{dir: *data, url: *database}
	made := newFiles(at) // before openStore creates them
	db, err := openStore(context.Background(), at)
	if err != nil {
		return err
	}
	var account *parley.NewAccount
	_, err = db.Store().Update(context.Background(), func(tx parley.Tx) (err error) {
		account, err = parley.CreateCompany(tx, req, api.HashSecret, parley.SystemClock.Now())
		return err
	})
	err = errors.Join(err, db.Close())
	if err != nil {
		return errors.Join(flagProblems(err), made.remove())
	}
	out := map[string]any{"company_id": account.Company.ID, "company": account.Company.Name, "plan": account.Company.Plan,
		"owner": account.Owner.Email, "mailbox_id": account.Mailbox.ID,
		"client_id": account.App.ClientID, "client_secret": account.ClientSecret}
	if account.OwnerPassword != "" {
		out["owner_password"] = account.OwnerPassword
	}
	if err := printJSON(stdout, out); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "company created; the secrets above are shown this once (stored hashed)")
	return nil
}

// createdFiles are the data directory and database file an embedded
// `init` is about to create, so that a failed one leaves nothing behind
// (a later `init` or `serve --demo` would find a database holding no
// company).
type createdFiles struct{ dir, db string }

// newFiles names what openStore will create at at: nothing for
// PostgreSQL, and of the data directory and its database file those that
// do not exist yet.
func newFiles(at location) createdFiles {
	var f createdFiles
	if at.postgres() {
		return f
	}
	if _, err := os.Stat(at.dir); errors.Is(err, fs.ErrNotExist) {
		f.dir = at.dir
	}
	if _, err := os.Stat(dbPath(at.dir)); errors.Is(err, fs.ErrNotExist) {
		f.db = dbPath(at.dir)
	}
	return f
}

// remove deletes the files; the directory only if it is empty.
func (f createdFiles) remove() error {
	var err error
	if f.db != "" {
		err = os.Remove(f.db)
	}
	if f.dir != "" {
		err = errors.Join(err, os.Remove(f.dir))
	}
	return err
}

// readPassword reads the owner's password twice from the terminal,
// without echo.
func readPassword(f *os.File, prompt io.Writer) (string, error) {
	fmt.Fprint(prompt, "owner's password: ")
	a, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	fmt.Fprint(prompt, "again: ")
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(prompt)
	if err != nil {
		return "", err
	}
	if string(a) != string(b) {
		return "", errors.New("the passwords differ")
	}
	return string(a), nil
}

// flagProblems rewrites a validation error of parley.CreateCompany with
// the flags' names.
func flagProblems(err error) error {
	var e *parley.Error
	if !errors.As(err, &e) || len(e.Errors) == 0 {
		return err
	}
	var lines []string
	for _, f := range e.Errors {
		name := initFlags[f.Path]
		if name == "" {
			name = f.Path
		}
		lines = append(lines, name+": "+f.Message)
	}
	return fmt.Errorf("%s", strings.Join(lines, "; "))
}
