//! The tiles after the pit definition was reloaded: kept where the table was untouched, fresh
//! where it was started, restarted or disabled.

use pitwatch_recording::pit::PitConfig;

use super::PitModel;

impl PitModel {
    /// The tiles for `pit` after a reload: each table `keep` names (it kept running, untouched)
    /// keeps its tile and what the model knows of it; every other table gets a fresh tile (a
    /// disabled one with its problems), and the tiles of tables no longer in `pit` are gone.
    /// Incident counts are set again by the caller, from the store.
    pub fn reconcile(&mut self, pit: &PitConfig, keep: &[String]) {
        let mut next = PitModel::new(pit);
        for name in keep {
            let (Some(&old), Some(&new)) = (self.index.get(name), next.index.get(name)) else {
                continue;
            };
            if next.tables[new].disabled.is_some() {
                continue;
            }
            next.tables[new] = self.tables[old].clone();
            next.device_errors[new] = std::mem::take(&mut self.device_errors[old]);
            next.carried_errors[new] = self.carried_errors[old];
        }
        *self = next;
    }
}

#[cfg(test)]
mod tests {
    use pitwatch_api::dto::LinkStatus;

    use super::*;

    fn section(name: &str, port: u16) -> String {
        format!(
            "[[table]]\nname = \"{name}\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
             device = {{ protocol = \"barcode\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
        )
    }

    #[test]
    fn a_reload_keeps_the_untouched_tiles_and_renews_the_others() {
        let before = PitConfig::load(&format!(
            "[site]\nname = \"P\"\n{}{}{}",
            section("KEEP", 1),
            section("GONE", 2),
            section("CHANGED", 3)
        ))
        .unwrap();
        let mut model = PitModel::new(&before);
        for tile in &mut model.tables {
            tile.status = super::super::tile::Link::Connected;
        }
        model.device_errors[0].push(("JAM".into(), "jammed".into()));
        let after = PitConfig::load(&format!(
            "[site]\nname = \"P\"\n{}{}{}[[table]]\nname = \"BROKEN\"\nrulez = 1\n",
            section("NEW", 4),
            section("CHANGED", 5),
            section("KEEP", 1)
        ))
        .unwrap();
        model.reconcile(&after, &["KEEP".to_owned(), "BROKEN".to_owned()]);
        let tables = model.tables();
        let names: Vec<_> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["NEW", "CHANGED", "KEEP", "BROKEN"],
            "the new file's order"
        );
        assert_eq!(model.table("KEEP").unwrap().status, LinkStatus::Connected);
        assert_eq!(model.device_errors[model.index["KEEP"]].len(), 1);
        for fresh in ["NEW", "CHANGED"] {
            assert_eq!(
                model.table(fresh).unwrap().status,
                LinkStatus::NotMonitored,
                "{fresh}"
            );
            assert!(model.device_errors[model.index[fresh]].is_empty());
        }
        assert!(model.table("GONE").is_none());
        assert!(
            model.table("BROKEN").unwrap().disabled.is_some(),
            "a wrong section is never kept"
        );
    }
}
