//! Staging a proposal: its edits checked against the working state, the
//! links its moves and renamed headings break rewritten by the engine, its
//! hunks diffed, triaged and staged on top of whatever is pending, and the
//! checkpoint taken before it, stored together.

use rayon::prelude::*;

use super::follow::{follow_link_targets, follow_moves};
use super::{RunInfo, Workspace, WorkspaceError, relink};
use crate::checkpoints::{Checkpoint, CheckpointKind, FileSnapshot};
use crate::edits::{
    EditError, EditErrorKind, FileOp, FileOpProposal, FileProposal, Operation, ProposedEdit,
    prepare, prepare_file_ops,
};
use crate::hunks::triage::{JobContext, assess};
use crate::hunks::{DiffBundle, HunkLimits, bundle_from, file_op_hunks};
use crate::links::LinkIndex;
use crate::project::{Project, View};
use crate::review::{Review, ReviewError, TieKind};
use crate::store::{Header, NewCheckpointFile, Store, StoreError};

/// One part of a run that stages as it goes, as [`Workspace::stagings`]
/// reads it back.
#[derive(Clone, Debug)]
pub struct Staging {
    /// The run's checkpoint, which the part's files were added to.
    pub checkpoint_id: String,
    /// Its hunks, with their ids.
    pub bundle: DiffBundle,
    /// The edits it staged.
    pub edits: Vec<ProposedEdit>,
}

/// A part as journaled.
#[derive(serde::Deserialize)]
struct Part {
    bundle: DiffBundle,
    edits: Vec<ProposedEdit>,
}

/// A part to journal, borrowed.
#[derive(serde::Serialize)]
struct PartRef<'a> {
    bundle: &'a DiffBundle,
    edits: &'a [ProposedEdit],
}

impl Workspace {
    /// Checks `edits` against the working state (so a proposal may stack on
    /// pending hunks and unsaved edits), takes a checkpoint of every file
    /// they touch, and stages the hunks for review, on top of whatever is
    /// pending. Moves and deletions of whole files are hunks of their own;
    /// the links a move would break are rewritten by the link engine as
    /// hunks that follow it. Returns the checkpoint and the diff bundle.
    pub fn propose(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        self.stage_proposal(run, edits, limits, None, false)
    }

    /// The parts journaled by [`Workspace::propose_into`] for `job_id`, in
    /// the order they were staged.
    pub fn stagings(&self, job_id: &str) -> Result<Vec<Staging>, WorkspaceError> {
        let rows = self.store.stagings(job_id)?;
        rows.into_iter()
            .map(|(checkpoint_id, doc)| {
                let part: Part = serde_json::from_str(&doc)
                    .map_err(|e| StoreError::Corrupt(format!("a staging of {job_id}: {e}")))?;
                Ok(Staging {
                    checkpoint_id,
                    bundle: part.bundle,
                    edits: part.edits,
                })
            })
            .collect()
    }

    /// Drops the parts journaled for `job_id`: its run ended, and its job
    /// holds them.
    pub fn forget_stagings(&self, job_id: &str) -> Result<(), WorkspaceError> {
        Ok(self.store.forget_stagings(job_id)?)
    }

    /// [`Workspace::propose`] for one part of a run that stages as it goes:
    /// the files recorded in the checkpoint `into` (an earlier part's) when
    /// given, so the run is one checkpoint, and the part journaled with its
    /// hunks in one transaction, so that after a crash
    /// [`Workspace::stagings`] says exactly what the run staged. The
    /// checkpoint returned lists the files of this part.
    pub fn propose_into(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
        into: Option<&str>,
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        self.stage_proposal(run, edits, limits, into, true)
    }

    fn stage_proposal(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
        into: Option<&str>,
        journal: bool,
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        crate::faults::check(crate::faults::Site::Stage);
        self.refuse_protected(edits)?;
        // A file moved (or kept) by a settled operation of an earlier job
        // can be moved or deleted again: the operation retires, on a draft
        // until the proposal's checks pass (a refused proposal leaves it as
        // it was), then stored before the proposal is.
        self.review.begin();
        let mut retired = Vec::new();
        for edit in edits.iter().filter(|e| e.operation.is_file_op()) {
            if let Ok(path) = self.project.resolve(&edit.file_path) {
                retired.extend(self.review.retire_op(path.rel()));
            }
        }
        let mut draft = true;
        let staged = self.stage_checked(run, edits, limits, into, journal, (&retired, &mut draft));
        if draft {
            self.review.end(staged.is_ok());
        }
        staged
    }

    /// [`Workspace::stage_proposal`] once the settled operations it
    /// replaces are retired on the open draft (`retired`: where each file
    /// was and is now under review), which it stores and keeps (clearing
    /// `draft`) once the proposal's checks pass.
    fn stage_checked(
        &mut self,
        run: &RunInfo,
        edits: &[ProposedEdit],
        limits: &HunkLimits,
        into: Option<&str>,
        journal: bool,
        (retired, draft): (&[(String, String)], &mut bool),
    ) -> Result<(Checkpoint, DiffBundle), WorkspaceError> {
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay).reading(&run.reads);
        let (mut proposals, mut ops) = match (prepare(view, edits), prepare_file_ops(view, edits)) {
            (Ok(proposals), Ok(ops)) => (proposals, ops),
            (proposals, ops) => {
                let mut errors = proposals.err().unwrap_or_default();
                errors.extend(ops.err().unwrap_or_default());
                errors.sort_by_key(|e| edits.iter().position(|x| x.edit_id == e.edit_id));
                return Err(WorkspaceError::Edits(errors));
            }
        };
        self.refuse_hidden_links(&view, &ops)?;
        let mut relinked = relink::relink(&view, &ops, &mut proposals)?;
        // A move whose links run through a protected note would rewrite it.
        let protected = !self.protection.is_empty();
        let through: Vec<EditError> = relinked
            .links
            .iter()
            .filter(|_| protected)
            .filter_map(|(path, _, leader)| {
                let relink::Leader::Op(i) = leader else {
                    return None;
                };
                let reads = self.protection.reads_text();
                let text = reads
                    .then(|| view.read_text(path).ok().map(|f| f.text))
                    .flatten();
                let why = self.protection.why(path, text.as_deref())?;
                Some(EditError {
                    edit_id: ops[*i].edit_id.clone(),
                    file_path: ops[*i].file_path.clone(),
                    kind: EditErrorKind::Protected(format!(
                        "it would rewrite the links in `{path}`, which is protected: {why}"
                    )),
                })
            })
            .collect();
        if let Some(first) = through.into_iter().next() {
            return Err(WorkspaceError::Edits(vec![first]));
        }
        // A file the working state shows at a pending move's target is under
        // review by the path it had.
        let key = |path: &mut String| {
            if self.review.file(path).is_none()
                && let Some(file) = self.review.file_at(path)
            {
                *path = file.path.clone();
            }
        };
        proposals.iter_mut().for_each(|p| key(&mut p.file_path));
        ops.iter_mut().for_each(|op| key(&mut op.file_path));
        for (path, _, leader) in &mut relinked.links {
            key(path);
            if let relink::Leader::Heading(note, _) = leader {
                key(note);
            }
        }
        proposals.sort_by(|a, b| a.file_path.cmp(&b.file_path));
        self.check_ops(&proposals, &ops, edits)?;
        // Checked: the retirements are kept.
        self.review.end(true);
        *draft = false;
        for (was, now) in retired {
            self.store.remove_file(was)?;
            if let Some(file) = self.review.file(now) {
                self.store.save_file(file)?;
            }
        }
        let mut bundle = numbered_bundle(&mut self.store, &proposals, &ops, limits)?;
        follow_moves(&mut bundle, &relinked);
        let broken = super::headings::broken_headings(&view, &proposals);
        let follow_earlier = follow_link_targets(&self.review, &view, &proposals, &mut bundle);
        bundle.job_id = Some(run.job_id.clone());
        // The texts of files not under review are known now: the store
        // takes them in while the hunks are triaged and staged.
        // An attachment's bytes go in too: a deletion may have to bring
        // them back.
        let texts: Vec<&[u8]> = proposals
            .iter()
            .filter(|p| self.review.file(&p.file_path).is_none())
            .flat_map(|p| [(!p.created).then_some(p.base.as_str()), Some(&p.proposed)])
            .flatten()
            .map(str::as_bytes)
            .chain(
                ops.iter()
                    .filter(|op| self.review.file(&op.file_path).is_none())
                    .map(|op| op.bytes.as_deref().unwrap_or(op.base.as_bytes())),
            )
            .collect();
        let what = Header::new(
            CheckpointKind::Run,
            run.session_id.as_deref(),
            Some(&run.job_id),
            &run.instruction,
        )
        .into_checkpoint(into);
        // The engine read the notes whose links it rewrote: the job did not
        // need to.
        let seen = run.seen.clone().map(|mut seen| {
            seen.extend(relinked.links.iter().map(|(path, _, _)| path.clone()));
            seen
        });
        let compute = || {
            let job = JobContext {
                instruction: &run.instruction,
                answers: &run.answers,
                seen: seen.as_ref(),
            };
            // Triage reads what staging reads: both at once, on two cores.
            let (assessment, staged) = rayon::join(
                || {
                    assess(&proposals, &bundle, &job, || {
                        let mut notes: Vec<String> = view
                            .with_paths(|paths| paths.iter().map(|p| (*p).to_owned()).collect());
                        // The project as it will be: moved notes at their
                        // new paths, deleted ones gone, created ones there.
                        notes.retain(|n| !ops.iter().any(|op| op.file_path == *n));
                        notes.extend(
                            ops.iter()
                                .filter_map(|op| op.op.target().map(str::to_owned)),
                        );
                        notes.extend(
                            proposals
                                .iter()
                                .filter(|p| p.created)
                                .map(|p| p.file_path.clone()),
                        );
                        notes
                    })
                },
                || {
                    let mut staged = self.review.clone();
                    let ids: Vec<String> =
                        bundle.file_ops.iter().map(|h| h.hunk_id.clone()).collect();
                    staged.stage_ops(&run.job_id, &ops, &ids)?;
                    staged.stage(&run.job_id, &proposals, &bundle)?;
                    // The engine's link rewrites first; a hunk of the
                    // proposal that links to where a move takes a note
                    // needs it, and says so last.
                    for op in &bundle.file_ops {
                        staged.follow(&op.hunk_id, &op.followers, TieKind::Update);
                    }
                    for hunk in bundle.files.iter().flat_map(|f| &f.hunks) {
                        staged.follow(&hunk.hunk_id, &hunk.followers, TieKind::Update);
                    }
                    for (leader, follower) in &follow_earlier {
                        staged.follow(leader, std::slice::from_ref(follower), TieKind::Needs);
                    }
                    Ok::<_, ReviewError>(staged)
                },
            );
            assessment.mark(&mut bundle);
            super::headings::flag(&mut bundle, &broken);
            let staged = staged?;
            let files = proposal_checkpoint(
                &self.project,
                &self.review,
                &proposals,
                &ops,
                &bundle,
                &staged,
            )?;
            Ok::<_, WorkspaceError>(((staged, bundle), files))
        };
        let (checkpoint, (staged, bundle)) = self.store.add_proposal(
            &what,
            &texts,
            compute,
            |(staged, _)| {
                let mut paths: Vec<&str> = proposals.iter().map(|p| p.file_path.as_str()).collect();
                paths.extend(
                    ops.iter()
                        .map(|op| op.file_path.as_str())
                        .filter(|p| !proposals.iter().any(|x| x.file_path == *p)),
                );
                // The moves that new hunks follow keep them listed.
                let leaders: Vec<String> = follow_earlier
                    .iter()
                    .filter_map(|(leader, _)| Some(staged.find_hunk(leader).ok()?.0))
                    .collect();
                for leader in &leaders {
                    if !paths.contains(&leader.as_str()) {
                        paths.push(leader);
                    }
                }
                paths
                    .into_iter()
                    .map(|p| staged.file(p).expect("staged"))
                    .collect()
            },
            |(_, bundle)| {
                journal.then(|| {
                    serde_json::to_string(&PartRef { bundle, edits }).expect("a bundle serializes")
                })
            },
        )?;
        self.review = staged;
        Ok((checkpoint, bundle))
    }

    /// Refuses every edit of `edits` that would change a protected note:
    /// its file, or where a move or a creation would put a note.
    fn refuse_protected(&self, edits: &[ProposedEdit]) -> Result<(), WorkspaceError> {
        // Nothing protected, nothing to read: a 5,000-note proposal stages
        // at the speed it did before protection existed.
        if self.protection.is_empty() {
            return Ok(());
        }
        let overlay = self.overlay();
        let view = View::with(&self.project, &overlay);
        let reads = self.protection.reads_text();
        let refused: Vec<EditError> = edits
            .iter()
            .filter_map(|edit| {
                let path = self.project.resolve(&edit.file_path).ok()?;
                let text = match edit.operation {
                    _ if !reads => None,
                    Operation::Create => Some(edit.new_text.clone()),
                    _ => view.read_text(path.rel()).ok().map(|f| f.text),
                };
                let target = edit
                    .new_path
                    .as_deref()
                    .and_then(|p| self.project.resolve(p).ok());
                let why = self
                    .protection
                    .why(path.rel(), text.as_deref())
                    .or_else(|| {
                        let target = target?;
                        let why = self.protection.why(target.rel(), None)?;
                        Some(format!("its new path `{}` is: {why}", target.rel()))
                    })?;
                Some(EditError {
                    edit_id: edit.edit_id.clone(),
                    file_path: edit.file_path.clone(),
                    kind: EditErrorKind::Protected(why),
                })
            })
            .collect();
        if refused.is_empty() {
            Ok(())
        } else {
            Err(WorkspaceError::Edits(refused))
        }
    }

    /// Refuses a move of a note that a note under review links to on disk
    /// (in what a save writes) but not in its working buffer, where a
    /// pending hunk took that link out: the link update would have to
    /// change text the buffer does not show, and the disk would keep a
    /// link to where the note no longer is. Deciding that hunk first lets
    /// the link follow.
    fn refuse_hidden_links(
        &self,
        view: &View<'_>,
        ops: &[FileOpProposal],
    ) -> Result<(), WorkspaceError> {
        if !ops.iter().any(|op| matches!(op.op, FileOp::Move { .. })) {
            return Ok(());
        }
        let hiding: Vec<(&str, String, String)> = self
            .review
            .files()
            .filter(|f| f.path.to_ascii_lowercase().ends_with(".md") && f.binary().is_none())
            .filter_map(|f| {
                // A note whose deletion is pending shows no link at all.
                let shown = f.view_path().map_or_else(String::new, |_| f.buffer());
                let disk = f
                    .saved_path()
                    .map_or_else(String::new, |_| self.review.disk_view(f));
                (disk != shown).then(|| (f.view_path().unwrap_or(&f.path), disk, shown))
            })
            .collect();
        if hiding.is_empty() {
            return Ok(());
        }
        let index = |texts: Vec<(&str, &str)>| {
            view.with_paths(|paths| LinkIndex::build(paths.iter().copied(), texts))
        };
        let on_disk = index(hiding.iter().map(|(p, d, _)| (*p, d.as_str())).collect());
        let shown = index(hiding.iter().map(|(p, _, s)| (*p, s.as_str())).collect());
        let count = |index: &LinkIndex, note: &str, source: &str| {
            index
                .backlinks(note)
                .iter()
                .filter(|l| l.source == source)
                .count()
        };
        let mut errors = Vec::new();
        for op in ops.iter().filter(|op| matches!(op.op, FileOp::Move { .. })) {
            let sources: std::collections::BTreeSet<&str> = on_disk
                .backlinks(&op.file_path)
                .iter()
                .map(|l| l.source)
                .collect();
            for source in sources {
                if count(&on_disk, &op.file_path, source) > count(&shown, &op.file_path, source) {
                    errors.push(EditError {
                        edit_id: op.edit_id.clone(),
                        file_path: op.file_path.clone(),
                        kind: EditErrorKind::Invalid(format!(
                            "`{source}` links to `{}` on disk, and a pending change there takes that link out; accept or reject that change first, so the link can follow the move",
                            op.file_path
                        )),
                    });
                }
            }
        }
        match errors.is_empty() {
            true => Ok(()),
            false => Err(WorkspaceError::Edits(errors)),
        }
    }

    /// Refuses what a proposal's moves and deletions cannot go with: line
    /// edits of a file it deletes, a file created where one moves to, and a
    /// second operation on a file that has one under review.
    fn check_ops(
        &self,
        proposals: &[FileProposal],
        ops: &[FileOpProposal],
        edits: &[ProposedEdit],
    ) -> Result<(), WorkspaceError> {
        let mut errors = Vec::new();
        let fail = |op: &FileOpProposal, why: String| EditError {
            edit_id: op.edit_id.clone(),
            file_path: op.file_path.clone(),
            kind: EditErrorKind::Invalid(why),
        };
        for op in ops {
            if self
                .review
                .file(&op.file_path)
                .is_some_and(|f| f.op().is_some())
            {
                errors.push(fail(
                    op,
                    ReviewError::OpStaged(op.file_path.clone()).to_string(),
                ));
            }
            for p in proposals {
                if op.op == FileOp::Delete && p.file_path == op.file_path {
                    errors.push(fail(
                        op,
                        "the same proposal edits the lines of the file it deletes; drop one or the other".into(),
                    ));
                } else if p.created && op.op.target() == Some(p.file_path.as_str()) {
                    errors.push(fail(
                        op,
                        format!(
                            "the same proposal creates a file at `{}`, where this moves the file",
                            p.file_path
                        ),
                    ));
                }
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        errors.sort_by_key(|e| edits.iter().position(|x| x.edit_id == e.edit_id));
        Err(WorkspaceError::Edits(errors))
    }
}

/// The hunks of `proposals` and `ops`, numbered from the store's counter:
/// the whole-file operations first, then every line hunk.
pub(super) fn numbered_bundle(
    store: &mut Store,
    proposals: &[FileProposal],
    ops: &[FileOpProposal],
    limits: &HunkLimits,
) -> Result<DiffBundle, StoreError> {
    let mut bundle = bundle_from(proposals, limits, 1);
    let count = (ops.len() + bundle.hunk_count()) as u64;
    let first = store.reserve("hunk", count)?;
    bundle.file_ops = file_op_hunks(ops, first);
    for (i, hunk) in bundle
        .files
        .iter_mut()
        .flat_map(|f| &mut f.hunks)
        .enumerate()
    {
        hunk.hunk_id = format!("h_{}", first + (ops.len() + i) as u64);
    }
    Ok(bundle)
}

/// What a proposal's checkpoint records: each file of `proposals` (see
/// [`checkpoint_files`]) and of `ops` (see [`op_checkpoint_files`]), a move
/// or deletion rolled back by the checkpoint of its file.
pub(super) fn proposal_checkpoint(
    project: &Project,
    review: &Review,
    proposals: &[FileProposal],
    ops: &[FileOpProposal],
    bundle: &DiffBundle,
    staged: &Review,
) -> Result<Vec<NewCheckpointFile>, WorkspaceError> {
    let mut files = checkpoint_files(project, review, proposals, bundle, staged)?;
    files.extend(op_checkpoint_files(project, review, ops, proposals)?);
    for op in &bundle.file_ops {
        if let Some(file) = files.iter_mut().find(|f| f.path == op.file_path) {
            file.hunk_ids.insert(0, op.hunk_id.clone());
        }
    }
    Ok(files)
}

/// What a run's checkpoint records of each file of `proposals`: its text
/// before, what was proposed, and how to take each hunk of `bundle` back
/// out of `staged` (`review` is the review before).
fn checkpoint_files(
    project: &Project,
    review: &Review,
    proposals: &[FileProposal],
    bundle: &DiffBundle,
    staged: &Review,
) -> Result<Vec<NewCheckpointFile>, WorkspaceError> {
    // A file not under review was just read to make its proposal: its
    // snapshot is that text, not a second read of the disk.
    let snapshots = proposals
        .iter()
        .map(|p| match review.file(&p.file_path) {
            Some(_) => FileSnapshot::take(project, review, &p.file_path),
            None if p.created => Ok(FileSnapshot::of_text(None, None)),
            None => Ok(FileSnapshot::of_text(
                Some(p.base.clone()),
                p.base_file_hash.clone(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(proposals
        .par_iter()
        .zip(snapshots)
        .zip(&bundle.files)
        .map(|((proposal, snapshot), diff)| {
            let file = staged.file(&proposal.file_path).expect("staged");
            let reverse_patches = diff
                .hunks
                .iter()
                .filter_map(|h| {
                    let i = file
                        .entries()
                        .iter()
                        .position(|e| e.hunk_id.as_deref() == Some(&h.hunk_id))?;
                    file.patch(i, true)
                })
                .collect();
            NewCheckpointFile {
                path: proposal.file_path.clone(),
                snapshot,
                proposed: Some(proposal.proposed.clone()),
                hunk_ids: diff.hunks.iter().map(|h| h.hunk_id.clone()).collect(),
                reverse_patches,
            }
        })
        .collect())
}

/// What a run's checkpoint records of each file of `ops` that no line
/// change of the proposal already records: its text before, where it was;
/// and, for a move, that nothing was at its target.
fn op_checkpoint_files(
    project: &Project,
    review: &Review,
    ops: &[FileOpProposal],
    proposals: &[FileProposal],
) -> Result<Vec<NewCheckpointFile>, WorkspaceError> {
    let mut files = Vec::new();
    for op in ops {
        if !proposals.iter().any(|p| p.file_path == op.file_path) {
            let snapshot = match (review.file(&op.file_path), &op.bytes) {
                (_, Some(bytes)) => {
                    FileSnapshot::of_bytes(bytes.clone(), op.base_file_hash.clone())
                }
                (Some(_), None) => FileSnapshot::take(project, review, &op.file_path)?,
                (None, None) => {
                    FileSnapshot::of_text(Some(op.base.clone()), Some(op.base_file_hash.clone()))
                }
            };
            files.push(NewCheckpointFile {
                path: op.file_path.clone(),
                snapshot,
                proposed: None,
                hunk_ids: Vec::new(),
                reverse_patches: Vec::new(),
            });
        }
        if let Some(to) = op.op.target() {
            files.push(NewCheckpointFile {
                path: to.to_owned(),
                snapshot: FileSnapshot::of_text(None, None),
                proposed: None,
                hunk_ids: Vec::new(),
                reverse_patches: Vec::new(),
            });
        }
    }
    Ok(files)
}
