"""How far do generic learners get on a foreign team's flows? (a probe, not a test)

Fits off-the-shelf models on a check's training flows and scores them on its test tasks with the
metrics `geoweave eval` prints (forward R@10 and COMP@20 over the distinct tools of a flow; next
hit@1 and hit@3 over every step after the first, given the task and the steps before):

- forward: one logistic regression per tool over the task's words (tf-idf of words and word pairs,
  plus character 3–5-grams at half weight), the tf-idf kNN vote of the ten most similar training
  tasks, and their mean;
- next step: a multinomial logistic regression over the task's words, the last one, two and three
  tools, every earlier tool and the position (hashed), with and without each word paired with the
  last tool; and gradient-boosted trees (LightGBM) over the same features without the pairs.

It answers one question the product's own baselines cannot: is there headroom a stronger generic
learner finds in the words and the flows, or is the product near what they hold? Results and the
settings tried are in bench/README.md ("Generic learners on the foreign checks").

Needs scikit-learn and lightgbm (`apt-get install python3-sklearn`, or pip). Usage:
  python3 bench/probes/generic_learners.py [team ...]     (default: every check with query/flow files)
"""
import json
import os
import sys

import numpy as np
from scipy.sparse import hstack
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'foreign')


def load(team, name):
    rows = []
    with open(os.path.join(HERE, team, name), encoding='utf-8') as f:
        for line in f:
            d = json.loads(line)
            if 'query' in d and d.get('flow'):
                rows.append((d['query'], d['flow']))
    return rows


def forward(tr, te):
    tools = sorted({t for _, f in tr for t in f})
    ix = {t: i for i, t in enumerate(tools)}
    words = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit([q for q, _ in tr])
    chars = TfidfVectorizer(analyzer='char_wb', ngram_range=(3, 5), sublinear_tf=True, min_df=2).fit([q for q, _ in tr])
    x = lambda qs: hstack([words.transform(qs), 0.5 * chars.transform(qs)]).tocsr()
    xtr, xte = x([q for q, _ in tr]), x([q for q, _ in te])
    y = np.zeros((len(tr), len(tools)))
    for n, (_, f) in enumerate(tr):
        for t in f:
            y[n, ix[t]] = 1
    lr = np.zeros((len(te), len(tools)))
    for k in range(len(tools)):
        if y[:, k].all():
            lr[:, k] = 1
        else:
            lr[:, k] = LogisticRegression(C=256, max_iter=3000).fit(xtr, y[:, k]).predict_proba(xte)[:, 1]
    sim = (xte @ xtr.T).toarray()
    knn = np.zeros_like(lr)
    for n in range(len(te)):
        top = np.argsort(-sim[n])[:10]
        knn[n] = sim[n, top] @ y[top] / max(1e-9, sim[n, top].sum())
    out = {}
    names = np.array(tools)
    for name, z in (('logistic', lr), ('knn', knn), ('mean', (lr + knn) / 2)):
        r10, c20 = [], []
        for n, (_, f) in enumerate(te):
            gold = set(f)
            order = names[np.argsort(-z[n], kind='stable')]
            r10.append(len(gold & set(order[:10])) / len(gold))
            c20.append(gold <= set(order[:20]))
        out[name] = (np.mean(r10), np.mean(c20))
    return out


def steps(data):
    for q, f in data:
        for i in range(1, len(f)):
            yield q, f[:i], f[i]


def next_step(tr, te):
    words = TfidfVectorizer(sublinear_tf=True).fit([q for q, _ in tr])
    analyse = words.build_analyzer()
    hasher = FeatureHasher(n_features=2 ** 16, input_type='string', alternate_sign=False)

    def feats(q, pre, pairs):
        f = ['L1=' + pre[-1], 'L2=' + '|'.join(pre[-2:]), 'L3=' + '|'.join(pre[-3:]), 'pos=%d' % min(len(pre), 12)]
        f += ['B=' + t for t in set(pre)]
        if pairs:
            f += ['X=%s|%s' % (pre[-1], w) for w in set(analyse(q))]
        return f

    s_tr, s_te = list(steps(tr)), list(steps(te))
    y_tr = [t for _, _, t in s_tr]
    y_te = [t for _, _, t in s_te]

    def design(rows, pairs):
        return hstack([words.transform([q for q, _, _ in rows]), hasher.transform([feats(q, p, pairs) for q, p, _ in rows])]).tocsr()

    def hits(p, classes):
        order = np.argsort(-p, axis=1)
        c = np.array(classes)
        return (np.mean([c[order[n, 0]] == y_te[n] for n in range(len(y_te))]),
                np.mean([y_te[n] in c[order[n, :3]] for n in range(len(y_te))]))

    out = {}
    for pairs in (False, True):
        m = LogisticRegression(C=10, max_iter=3000).fit(design(s_tr, pairs), y_tr)
        out['logistic' + (' + pairs' if pairs else '')] = hits(m.predict_proba(design(s_te, pairs)), m.classes_)
    try:
        import lightgbm as lgb
        classes = sorted(set(y_tr))
        ci = {c: i for i, c in enumerate(classes)}
        m = lgb.LGBMClassifier(objective='multiclass', n_estimators=150, learning_rate=0.05, num_leaves=7, min_child_samples=10,
                               reg_lambda=1.0, max_bin=15, subsample=0.8, subsample_freq=1, colsample_bytree=0.5, verbose=-1, n_jobs=2)
        m.fit(design(s_tr, False).astype(np.float32), [ci[c] for c in y_tr])
        out['boosted trees'] = hits(m.predict_proba(design(s_te, False).astype(np.float32)), classes)
    except ImportError:
        pass
    return out, len(y_te)


def main():
    teams = sys.argv[1:] or sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, 'train.jsonl')))
    for team in teams:
        tr, te = load(team, 'train.jsonl'), load(team, 'test.jsonl')
        if not tr or not te:
            print(f'{team}: no query/flow rows (chat logs are not read here)')
            continue
        for name, (r10, c20) in forward(tr, te).items():
            print(f'{team}\tforward\t{name}\tR@10 {r10:.3f}\tCOMP@20 {c20:.3f}')
        nxt, n = next_step(tr, te)
        for name, (h1, h3) in nxt.items():
            print(f'{team}\tnext\t{name}\thit@1 {h1:.3f}\thit@3 {h3:.3f}\t({n} steps)')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
