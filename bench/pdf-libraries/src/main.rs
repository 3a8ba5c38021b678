//! Writes the same ten pages with krilla and with printpdf (600 lines, each a Latin run with
//! macrons in Noto Sans and a Chinese run in WenQuanYi Micro Hei, fonts embedded and subsetted)
//! and prints each library's median time, output size, and whether poppler extracts the text
//! exactly. The PDFs are left in the system's temporary directory for a look.

use std::process::Command;
use std::time::Instant;

const NOTO: &[u8] = include_bytes!("../../../crates/pitwatch-report/fonts/NotoSans-Regular.ttf");
const WQY: &[u8] = include_bytes!("../../../crates/pitwatch-report/fonts/wqy-microhei.ttc");
const LINES: usize = 600;
const PER_PAGE: usize = 60;

fn latin(i: usize) -> String {
    format!("Row {i}: Mere Tūhoe — Kua tirohia te kāmera 14 / ")
}
const CHINESE: &str = "監控已檢查，沒有發現問題。";

fn krilla_pdf() -> Vec<u8> {
    use krilla::geom::Point;
    use krilla::page::PageSettings;
    use krilla::text::{Font, TextDirection};
    let noto = Font::new(NOTO.into(), 0).expect("Noto Sans");
    let wqy = Font::new(WQY.into(), 0).expect("WenQuanYi");
    let mut document = krilla::Document::new();
    for page_lines in (0..LINES).collect::<Vec<_>>().chunks(PER_PAGE) {
        let mut page = document.start_page_with(PageSettings::from_wh(595.0, 842.0).unwrap());
        let mut surface = page.surface();
        for (n, &i) in page_lines.iter().enumerate() {
            let y = 50.0 + n as f32 * 12.5;
            let text = latin(i);
            surface.draw_text(
                Point::from_xy(50.0, y),
                noto.clone(),
                9.0,
                &text,
                false,
                TextDirection::Auto,
            );
            // Where the Latin run ends, as krilla measured it is not exposed: a fixed column.
            surface.draw_text(
                Point::from_xy(330.0, y),
                wqy.clone(),
                9.0,
                CHINESE,
                false,
                TextDirection::Auto,
            );
        }
        surface.finish();
        page.finish();
    }
    document.finish().expect("a PDF")
}

fn printpdf_pdf() -> Vec<u8> {
    use printpdf::{
        Mm, Op, ParsedFont, PdfDocument, PdfFontHandle, PdfPage, PdfSaveOptions, Point, Pt,
        TextItem,
    };
    let mut document = PdfDocument::new("compare");
    let noto =
        document.add_font(&ParsedFont::from_bytes(NOTO, 0, &mut Vec::new()).expect("Noto Sans"));
    let wqy =
        document.add_font(&ParsedFont::from_bytes(WQY, 0, &mut Vec::new()).expect("WenQuanYi"));
    let mut pages = Vec::new();
    for page_lines in (0..LINES).collect::<Vec<_>>().chunks(PER_PAGE) {
        let mut ops = Vec::new();
        for (n, &i) in page_lines.iter().enumerate() {
            let y = 842.0 - 50.0 - n as f32 * 12.5;
            for (x, font, text) in [(50.0, &noto, latin(i)), (330.0, &wqy, CHINESE.to_owned())] {
                ops.push(Op::StartTextSection);
                ops.push(Op::SetFont {
                    font: PdfFontHandle::External(font.clone()),
                    size: Pt(9.0),
                });
                ops.push(Op::SetTextCursor {
                    pos: Point { x: Pt(x), y: Pt(y) },
                });
                ops.push(Op::ShowText {
                    items: vec![TextItem::Text(text)],
                });
                ops.push(Op::EndTextSection);
            }
        }
        pages.push(PdfPage::new(Mm(210.0), Mm(297.0), ops));
    }
    document
        .with_pages(pages)
        .save(&PdfSaveOptions::default(), &mut Vec::new())
}

fn median_ms(runs: usize, f: impl Fn() -> Vec<u8>) -> (f64, Vec<u8>) {
    let mut times = Vec::new();
    let mut out = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        out = f();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], out)
}

fn main() {
    let dir = std::env::temp_dir();
    for (name, f) in [
        ("krilla", krilla_pdf as fn() -> Vec<u8>),
        ("printpdf", printpdf_pdf),
    ] {
        let (ms, pdf) = median_ms(11, f);
        let path = dir.join(format!("compare-{name}.pdf"));
        std::fs::write(&path, &pdf).expect("written");
        let text = Command::new("pdftotext")
            .arg(&path)
            .arg("-")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let exact = (0..LINES).all(|i| text.contains(latin(i).trim_end_matches(" / ").trim_end()))
            && text.matches(CHINESE).count() == LINES;
        println!(
            "{name:9} {ms:8.1} ms  {:8} bytes  text extracted exactly: {exact}  ({})",
            pdf.len(),
            path.display()
        );
    }
}
