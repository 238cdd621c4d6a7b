package learn

// Clone returns a predictor of p's model and grammar that gives reasons
// when p does, for another goroutine: a Predictor is not safe for
// concurrent use, and predicting on every processor takes one each.
func (p *Predictor) Clone() (*Predictor, error) {
	q, err := NewPredictor(p.Model, p.Graph)
	if err != nil {
		return nil, err
	}
	q.Reasons = p.Reasons
	return q, nil
}
