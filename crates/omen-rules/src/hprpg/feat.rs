//! The feats (003-D4, M25) by name: below the character and the resources, which both name them.

seed_names! {
    /// Every feat an archetype offers (003-D4, M25), archetype by archetype. Their effects are in
    /// [`super::resources::feat_data`].
    pub enum Feat ("feat") {
        Ambush = "AMBUSH";
        ColdCases = "COLD CASES";
        FamiliarTerrain = "FAMILIAR TERRAIN";
        LieDetector = "LIE DETECTOR";
        RapidReflexes = "RAPID REFLEXES";
        UnwaveringFocus = "UNWAVERING FOCUS";
        AsteriasEyes = "ASTERIA'S EYES";
        DryadsEmbrace = "DRYAD'S EMBRACE";
        NaturesCloak = "NATURE'S CLOAK";
        NymphsFury = "NYMPH'S FURY";
        OrganicRepose = "ORGANIC REPOSE";
        SatyrSpirit = "SATYR SPIRIT";
        BurnBook = "BURN BOOK";
        MesmerisingPresence = "MESMERISING PRESENCE";
        OneForYouTwoForMe = "ONE FOR YOU, TWO FOR ME";
        UnbreakableVow = "UNBREAKABLE VOW";
        Bloodlust = "BLOODLUST";
        Duelist = "DUELIST";
        FuriousSpellcaster = "FURIOUS SPELLCASTER";
        HolisticTactics = "HOLISTIC TACTICS";
        StudentOfWar = "STUDENT OF WAR";
        SavageAttacker = "SAVAGE ATTACKER";
    }
}
