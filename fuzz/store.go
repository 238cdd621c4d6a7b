package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/arbor-fuzz/arbor/corpus"
	"github.com/arbor-fuzz/arbor/grammar"
	"github.com/arbor-fuzz/arbor/internal/atomicfile"
	"github.com/arbor-fuzz/arbor/internal/filelock"
)

// StoreConfig says where a campaign's files go.
type StoreConfig struct {
	// Dir is the campaign's folder (arbor fuzz --out).
	Dir string
	// Ext is the extension of the corpus files (".json"), from the
	// grammar's name.
	Ext string
	// FuzzTarget, if set, makes the corpus the seed corpus of this Go
	// fuzz target: Dir is then the Go package's folder, the inputs go to
	// Dir/testdata/fuzz/FuzzX/ in Go's corpus format under Go's names,
	// and the other files beside that folder, named after the target
	// (FuzzX.corpus.jsonl), where go test does not read them.
	FuzzTarget string
	// Wait makes OpenStore wait for another campaign writing the folder
	// to end, instead of failing.
	Wait bool
	// Grammar and Bounds derive the choices of an input left in the
	// corpus folder without its line (a campaign killed between the
	// two), so that it is run again and, kept, gets its line. Without a
	// grammar such inputs are only told of.
	Grammar *grammar.Graph
	Bounds  Bounds
}

// A Store keeps a campaign's findings in its folder as they come, so that
// a campaign killed at any moment (kill -9, a full disk) loses at most
// the input in flight and the executions of the last second, and reads
// a previous campaign's findings back to resume it:
//
//	corpus/NNNNN.EXT   the inputs kept, named in order, never reused
//	corpus.jsonl       a line per input: file, choices, valid, moved
//	failures/          the first input of each distinct failure
//	failures.jsonl     a line per failure, with its count, replaced
//	                   (write and rename) at every occurrence
//	curve.csv          executions, seconds, corpus, failures and domain
//	                   sizes at every input kept and failure found,
//	                   appended; a resumed campaign goes on counting
//	state.json         executions and seconds of all campaigns, replaced
//	                   at every point of the curve and every second
//
// An input's file is written before its line, so a line never names a
// file that is not there; a line or a curve row cut off by a crash is
// cut away when the folder is opened again. One campaign at a time
// writes a folder: OpenStore takes a lock, which a killed campaign lets
// go of at once.
type Store struct {
	cfg  StoreConfig
	lock *filelock.Lock

	seeds    [][]int
	named    map[string]bool   // inputs a corpus line names
	lined    map[string]bool   // the files corpus lines name, as they name them
	orphans  map[string]string // inputs in the corpus folder without a line: their file, as lines name it
	orphaned int               // orphans whose choices could be derived: the last seeds
	next     int               // number of the next corpus file
	log      *os.File          // corpus.jsonl

	failures []FailureRecord
	byKey    map[string]int  // failure key → index in failures
	old      int             // failures found before this campaign
	files    []string        // per failure of this campaign's result, in order found: its file, "" if old
	told     map[string]bool // failures this campaign has found

	curve       *os.File // curve.csv
	curveHeader string
	prev        State     // of the campaigns before
	saved       time.Time // when state.json was last written
}

// State is what a resumed campaign needs to know of those before it.
type State struct {
	Executions int     `json:"executions"`
	Seconds    float64 `json:"seconds,omitempty"`
}

// CorpusLine is a line of corpus.jsonl.
type CorpusLine struct {
	File    string   `json:"file"`
	Choices []int    `json:"choices"`
	Valid   bool     `json:"valid"`
	Moved   []string `json:"moved"`
}

// FailureRecord is a line of failures.jsonl: a distinct failure, the
// file of its first input, and how often it happened in all campaigns.
type FailureRecord struct {
	File    string `json:"file"`
	Outcome string `json:"outcome"`
	Stack   string `json:"stack"`
	Message string `json:"message"`
	Frames  string `json:"frames,omitempty"`
	Choices []int  `json:"choices"`
	Count   int    `json:"count"`
}

func (r FailureRecord) key() string { return r.Outcome + "\x00" + r.Stack }

// OpenStore opens (creating it if needed) a campaign's folder and reads
// back what earlier campaigns left there.
func OpenStore(ctx context.Context, cfg StoreConfig) (*Store, error) {
	s := &Store{cfg: cfg, named: map[string]bool{}, lined: map[string]bool{}, orphans: map[string]string{}, byKey: map[string]int{}, told: map[string]bool{}}
	for _, dir := range []string{s.corpusDir(), s.path("failures")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("campaign folder: %w", err)
		}
	}
	var err error
	s.lock, err = filelock.Acquire(ctx, s.path(".lock"), filelock.Options{
		What: "campaign folder " + cfg.Dir, Wait: cfg.Wait,
		Hint: "give each campaign a folder of its own, or wait for it with --wait",
	})
	if err != nil {
		return nil, err
	}
	if err := s.readBack(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// path is where the file arbor names name goes.
func (s *Store) path(name string) string {
	if s.cfg.FuzzTarget != "" {
		return filepath.Join(filepath.Dir(s.corpusDir()), s.cfg.FuzzTarget+"."+strings.TrimPrefix(name, "."))
	}
	return filepath.Join(s.cfg.Dir, name)
}

func (s *Store) corpusDir() string {
	if s.cfg.FuzzTarget != "" {
		return corpus.GoFuzzDir(s.cfg.Dir, s.cfg.FuzzTarget)
	}
	return filepath.Join(s.cfg.Dir, "corpus")
}

// rel is path as the .jsonl files name it: from the folder they are in.
func (s *Store) rel(path string) string {
	r, err := filepath.Rel(filepath.Dir(s.path("corpus.jsonl")), path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

func (s *Store) abs(rel string) string {
	return filepath.Join(filepath.Dir(s.path("corpus.jsonl")), filepath.FromSlash(rel))
}

// readBack reads the corpus, failures, state and curve a campaign left,
// cutting away a line a crash cut off.
func (s *Store) readBack(ctx context.Context) error {
	var (
		data []byte
		err  error
	)
	if s.log, data, err = openLog(s.path("corpus.jsonl")); err != nil {
		return err
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var c CorpusLine
		if err := json.Unmarshal(line, &c); err != nil {
			return fmt.Errorf("resuming: %s line %d: %w", s.path("corpus.jsonl"), i+1, err)
		}
		s.seeds = append(s.seeds, c.Choices)
		s.next = max(s.next, s.number(c.File))
		s.lined[c.File] = true
		if input, err := s.readInput(c.File); err == nil {
			s.named[string(input)] = true
		}
	}
	if s.cfg.FuzzTarget == "" {
		// A Go seed corpus holds the user's inputs too; its names are
		// hashes of the content, which a resumed campaign that keeps an
		// input again writes again under the same name.
		if err := s.readOrphans(ctx); err != nil {
			return err
		}
	}
	if data, err := os.ReadFile(s.path("state.json")); err == nil {
		// A damaged state (it is written by rename, so only a hand
		// could damage it) counts no executions.
		json.Unmarshal(data, &s.prev)
	}
	data, err = os.ReadFile(s.path("failures.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		// There from the start, so that a campaign that found nothing
		// says so.
		err = atomicfile.Write(s.path("failures.jsonl"), nil, 0o644)
	}
	if err != nil {
		return fmt.Errorf("resuming: %w", err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r FailureRecord
		if len(line) == 0 || json.Unmarshal(line, &r) != nil {
			continue
		}
		if _, dup := s.byKey[r.key()]; dup {
			continue
		}
		s.byKey[r.key()] = len(s.failures)
		s.failures = append(s.failures, r)
	}
	s.old = len(s.failures)
	if s.curve, data, err = openLog(s.path("curve.csv")); err != nil {
		return err
	}
	s.curveHeader, _, _ = strings.Cut(string(data), "\n")
	return nil
}

// openLog opens a file appended to line by line and returns its
// complete lines, cutting away a last line without its newline (a write
// cut off by a crash or a full disk).
func openLog(path string) (*os.File, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("campaign folder: %w", err)
	}
	data, err := io.ReadAll(f)
	complete := bytes.LastIndexByte(data, '\n') + 1
	if err == nil && complete < len(data) {
		err = f.Truncate(int64(complete))
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("campaign folder: %s: %w", path, err)
	}
	return f, data[:complete], nil
}

// number is the number of a corpus file named by the store (00012.json
// is 12), or 0.
func (s *Store) number(rel string) int {
	if s.cfg.FuzzTarget != "" {
		return 0 // Go's names are hashes
	}
	base := filepath.Base(filepath.FromSlash(rel))
	digits := strings.TrimSuffix(base, s.cfg.Ext)
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || digits == base && s.cfg.Ext != "" {
		return 0
	}
	return n
}

func (s *Store) readInput(rel string) ([]byte, error) {
	data, err := os.ReadFile(s.abs(rel))
	if err != nil {
		return nil, err
	}
	if s.cfg.FuzzTarget != "" {
		return corpus.Decode(rel, data)
	}
	return data, nil
}

// readOrphans finds the inputs in the corpus folder that no line names:
// a campaign killed between writing an input and its line leaves one.
// Their choices are derived, so that the resumed campaign runs them
// again, and an orphan kept again gets its line under its old name.
func (s *Store) readOrphans(ctx context.Context) error {
	entries, err := os.ReadDir(s.corpusDir())
	if err != nil {
		return fmt.Errorf("resuming: %w", err)
	}
	var inputs [][]byte
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rel := s.rel(filepath.Join(s.corpusDir(), e.Name()))
		s.next = max(s.next, s.number(rel))
		if s.lined[rel] {
			continue // read with its line
		}
		input, err := s.readInput(rel)
		if err != nil || s.named[string(input)] {
			continue
		}
		if _, dup := s.orphans[string(input)]; dup {
			continue
		}
		s.orphans[string(input)] = rel
		inputs = append(inputs, input)
	}
	if len(inputs) == 0 || s.cfg.Grammar == nil {
		return nil
	}
	seeds, _, err := SeedsFromInputsContext(ctx, s.cfg.Grammar, inputs, s.cfg.Bounds)
	if err != nil {
		return fmt.Errorf("resuming: %w", err)
	}
	s.seeds = append(s.seeds, seeds...)
	s.orphaned = len(seeds)
	return nil
}

// Seeds are the choices of the corpus already in the folder, to run
// first: a resumed campaign.
func (s *Store) Seeds() [][]int { return s.seeds }

// Resumed is the number of inputs the folder held.
func (s *Store) Resumed() int { return len(s.seeds) - s.orphaned }

// Previous is what the campaigns before this one did.
func (s *Store) Previous() State { return s.prev }

// OldFailures is the number of distinct failures found before.
func (s *Store) OldFailures() int { return s.old }

// FailureFile is the file of the i-th failure this campaign found (in
// the order Result.Failures lists them), as failures.jsonl names it, or
// "" if it was found before.
func (s *Store) FailureFile(i int) string {
	if i < len(s.files) {
		return s.files[i]
	}
	return ""
}

// Attach makes the campaign of opts save into s as it goes: its inputs,
// failures, curve and executions.
func (s *Store) Attach(opts *Options) {
	opts.Kept = s.keep
	opts.Failed = s.fail
	opts.Point = s.point
	progress := opts.Progress
	opts.Progress = func(st Stats) {
		s.saveState(st, false)
		if progress != nil {
			progress(st)
		}
	}
}

// keep writes a kept input: its file, then its line. An input already
// there (a resumed one, run again first) is not written twice.
func (s *Store) keep(e Entry) error {
	key := string(e.Input)
	if s.named[key] {
		return nil
	}
	rel, ok := s.orphans[key]
	if !ok {
		var err error
		if rel, err = s.writeInput(e.Input); err != nil {
			return fmt.Errorf("saving the corpus: %w", err)
		}
	}
	line, err := json.Marshal(CorpusLine{File: rel, Choices: e.Choices, Valid: e.Valid, Moved: e.Moved})
	if err != nil {
		return err
	}
	if _, err := s.log.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("saving the corpus: %w", err)
	}
	s.named[key] = true
	delete(s.orphans, key)
	return nil
}

// writeInput writes a new corpus file under a name no file has had:
// the next number, created exclusively, or Go's name (a hash of the
// content) in Go's format.
func (s *Store) writeInput(input []byte) (string, error) {
	if s.cfg.FuzzTarget != "" {
		p, err := corpus.WriteGoFuzz(s.corpusDir(), input)
		if err != nil {
			return "", err
		}
		return s.rel(p), nil
	}
	for {
		s.next++
		name := fmt.Sprintf("%06d%s", s.next, s.cfg.Ext)
		path := filepath.Join(s.corpusDir(), name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // a file put there by hand
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(input)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			// A file cut short (a full disk) must not stay: it would be
			// taken for an input on resume.
			os.Remove(path)
			return "", err
		}
		return s.rel(path), nil
	}
}

// fail counts an occurrence of a failure, writing its input if it is
// new, and replaces failures.jsonl, so that the counts on disk are the
// counts so far.
func (s *Store) fail(fl Failure) error {
	r := FailureRecord{Outcome: string(fl.Outcome), Stack: fl.Stack}
	i, ok := s.byKey[r.key()]
	switch {
	case ok:
		s.failures[i].Count++
		if !s.told[r.key()] {
			s.files = append(s.files, "") // found before: not new
		}
	default:
		name := string(fl.Outcome)
		if fl.Stack != "" {
			name += "-" + fl.Stack
		}
		data := fl.Input
		if s.cfg.FuzzTarget != "" {
			// In Go's format, so that copied into the seed corpus it
			// is a test case go test runs.
			data = corpus.EncodeGoFuzz(data)
		} else {
			name += s.cfg.Ext
		}
		path := filepath.Join(s.path("failures"), name)
		if err := atomicfile.Write(path, data, 0o644); err != nil {
			return fmt.Errorf("saving a failure: %w", err)
		}
		r.File, r.Message, r.Frames, r.Choices, r.Count = s.rel(path), fl.Message, fl.Frames, fl.Choices, 1
		s.byKey[r.key()] = len(s.failures)
		s.failures = append(s.failures, r)
		s.files = append(s.files, r.File)
	}
	s.told[r.key()] = true
	var b bytes.Buffer
	for _, r := range s.failures {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := atomicfile.Write(s.path("failures.jsonl"), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("saving the failures: %w", err)
	}
	return nil
}

// Failures are the distinct failures of all campaigns, with their counts.
func (s *Store) Failures() []FailureRecord { return s.failures }

// point appends a point of the curve, counted from the first campaign,
// and saves the state.
func (s *Store) point(st Stats) error {
	header := "executions,seconds,corpus,valid_executions,failures"
	for _, d := range st.Domains {
		header += "," + d.Name
	}
	if header != s.curveHeader {
		if err := s.newCurve(header); err != nil {
			return fmt.Errorf("saving the curve: %w", err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d,%.3f,%d,%d,%d", s.prev.Executions+st.Execs, s.prev.Seconds+st.Elapsed.Seconds(), st.Corpus, st.Valid, st.Failures)
	for _, d := range st.Domains {
		fmt.Fprintf(&b, ",%d", d.Size)
	}
	b.WriteByte('\n')
	if _, err := io.WriteString(s.curve, b.String()); err != nil {
		return fmt.Errorf("saving the curve: %w", err)
	}
	return s.saveState(st, true)
}

// newCurve starts curve.csv with header: a curve with other columns (the
// domains changed) moves aside to curve.N.csv, under a name not taken.
func (s *Store) newCurve(header string) error {
	if s.curveHeader != "" {
		for n := 1; ; n++ {
			aside := s.path(fmt.Sprintf("curve.%d.csv", n))
			if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(s.path("curve.csv"), aside); err != nil {
					return err
				}
				break
			}
		}
		s.curve.Close()
		var err error
		if s.curve, err = os.OpenFile(s.path("curve.csv"), os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o644); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(s.curve, header+"\n"); err != nil {
		return err
	}
	s.curveHeader = header
	return nil
}

// saveState replaces state.json with the executions so far; without
// force, at most once a second.
func (s *Store) saveState(st Stats, force bool) error {
	if !force && time.Since(s.saved) < time.Second {
		return nil
	}
	s.saved = time.Now()
	data, err := json.Marshal(State{Executions: s.prev.Executions + st.Execs, Seconds: s.prev.Seconds + st.Elapsed.Seconds()})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path("state.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving the state: %w", err)
	}
	return nil
}

// Finish adds the campaign's end to the curve and saves its state.
func (s *Store) Finish(res *Result) error {
	return s.point(res.Stats)
}

// Close closes the folder's files and lets go of its lock.
func (s *Store) Close() error {
	var errs []error
	for _, f := range []*os.File{s.log, s.curve} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	errs = append(errs, s.lock.Release())
	return errors.Join(errs...)
}
