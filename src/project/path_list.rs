//! A list of paths held end to end in one buffer.

/// Paths stored end to end in one buffer, in the order given. A scan over
/// all of them (quick open ranks every path on each keystroke) then reads
/// memory in order; one allocation per path scattered between the index's
/// texts made that scan wait on a cache miss per path.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PathList {
    text: String,
    ends: Vec<usize>,
}

impl PathList {
    /// The paths, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let path = &self.text[start..end];
            start = end;
            path
        })
    }

    /// How many paths it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl<'a> FromIterator<&'a str> for PathList {
    fn from_iter<I: IntoIterator<Item = &'a str>>(paths: I) -> PathList {
        let mut list = PathList::default();
        for path in paths {
            list.text.push_str(path);
            list.ends.push(list.text.len());
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_come_back_as_they_went_in() {
        let paths = ["a.md", "", "notes/é.md", "z"];
        let list: PathList = paths.into_iter().collect();
        assert_eq!(list.len(), 4);
        assert!(list.iter().eq(paths));
        assert!(PathList::default().is_empty());
    }
}
